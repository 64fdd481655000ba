import { useEffect, useState } from 'preact/hooks';
import { call, type SetupProgress } from '../api';
import './first-run.css';
import { t } from '../i18n/i18n';

/** Where the admin's "hide" choice is kept (this browser; the list also ends when all is done). */
const hiddenKey = 'makerspace.firstRunHidden';

function stored(): string | null {
  try {
    return localStorage.getItem(hiddenKey);
  } catch {
    return null;
  }
}

interface Item {
  done: boolean;
  title: string;
  /** What is there now, or what is missing and why it matters. */
  detail: string;
  /** The page that does it, and the link's words; none for the hub's environment. */
  href?: string;
  action?: string;
}

/** The checklist's items from GET /setup-progress, in the order a new space sets them up. */
export function checklist(p: SetupProgress): Item[] {
  const space = p.spaces[0];
  const name = space?.name ?? t('admin.first_run.theSpace');
  return [
    {
      done: Boolean(space?.timezoneSet),
      title: t('admin.first_run.timeZone', { name }),
      detail: space?.timezoneSet ? space.timezone : t('admin.first_run.stillUtc'),
      href: '/admin/spaces',
      action: t('admin.first_run.setTimeZone'),
    },
    {
      done: (space?.openingHours ?? 0) > 0,
      title: t('admin.first_run.openingHours', { name }),
      detail:
        (space?.openingHours ?? 0) > 0
          ? t('admin.first_run.ranges', { count: space?.openingHours ?? 0 })
          : t('admin.first_run.noHours'),
      href: '/admin/spaces',
      action: t('admin.first_run.setHours'),
    },
    {
      done: p.publicUrlSet,
      title: t('admin.first_run.publicUrl'),
      detail: p.publicUrlSet ? t('admin.first_run.publicUrlSet') : t('admin.first_run.publicUrlNotSet'),
    },
    {
      done: p.packages > 0,
      title: t('admin.first_run.aPackage'),
      detail:
        p.packages > 0
          ? t('admin.first_run.active', { count: p.packages })
          : t('admin.first_run.needPackage'),
      href: '/admin/packages',
      action: t('admin.first_run.createPackage'),
    },
    {
      done: p.resources > 0,
      title: t('admin.first_run.aResource'),
      detail:
        p.resources > 0 ? t('admin.first_run.active', { count: p.resources }) : t('admin.first_run.noneYet'),
      href: '/admin/resources',
      action: t('admin.first_run.addResource'),
    },
    {
      done: p.pairedBridges > 0,
      title: t('admin.first_run.aBridge'),
      detail:
        p.pairedBridges > 0
          ? t('admin.first_run.bridges', { count: p.pairedBridges })
          : t('admin.first_run.bridgeHint'),
      href: '/admin/resources',
      action: t('admin.first_run.pairBridge'),
    },
    {
      done: p.invitedMembers > 0,
      title: t('admin.first_run.aMember'),
      detail:
        p.invitedMembers > 0
          ? t('admin.first_run.invited', { count: p.invitedMembers })
          : t('admin.first_run.inviteHint'),
      href: '/admin/members',
      action: t('admin.first_run.inviteMember'),
    },
  ];
}

/**
 * The dashboard's first-run checklist: what a new space still has to set up, each with a link to
 * the page that does it. It disappears when everything is done, or when the admin hides it.
 */
export function FirstRunChecklist() {
  const [hidden, setHidden] = useState(() => stored() === '1');
  const [progress, setProgress] = useState<SetupProgress | null>(null);
  useEffect(() => {
    if (hidden) return;
    call<SetupProgress>('GET', '/setup-progress').then(setProgress, () => {});
  }, [hidden]);
  if (hidden || !progress) return null;
  const items = checklist(progress);
  const done = items.filter((i) => i.done).length;
  if (done === items.length) return null;
  return (
    <section aria-labelledby="first-run-h" class="first-run">
      <h2 id="first-run-h">{t('admin.first_run.setUpYourMakerspace')}</h2>
      <p class="muted">{t('admin.first_run.progress', { done, total: items.length })}</p>
      <ol aria-label={t('admin.first_run.firstRunChecklist')} class="rows checklist">
        {items.map((i) => (
          <li
            key={i.title}
            class={i.done ? 'ok' : 'todo'}
            aria-label={t('admin.first_run.itemState', {
              title: i.title,
              state: i.done ? t('admin.first_run.done') : t('admin.first_run.toDo'),
            })}
          >
            <span class="tick" aria-hidden="true">
              {i.done ? '✓' : '○'}
            </span>
            <span class="what">
              <strong>{i.title}</strong>
              <span class="small">{i.detail}</span>
            </span>
            {!i.done && i.href && <a href={i.href}>{i.action}</a>}
          </li>
        ))}
      </ol>
      <button
        type="button"
        class="link"
        onClick={() => {
          try {
            localStorage.setItem(hiddenKey, '1');
          } catch {
            // Storage refused (a private window): hidden for this visit only.
          }
          setHidden(true);
        }}
      >
        {t('admin.first_run.hideTheChecklist')}
      </button>
    </section>
  );
}
