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
  const name = space?.name ?? 'the space';
  return [
    {
      done: Boolean(space?.timezoneSet),
      title: `Time zone of ${name}`,
      detail: space?.timezoneSet
        ? space.timezone
        : 'Still UTC: opening hours, bookings and times on members’ phones use it.',
      href: '/admin/spaces',
      action: 'Set the time zone',
    },
    {
      done: (space?.openingHours ?? 0) > 0,
      title: `Opening hours of ${name}`,
      detail:
        (space?.openingHours ?? 0) > 0
          ? `${space?.openingHours} ranges a week`
          : 'None yet: the space is open at all times.',
      href: '/admin/spaces',
      action: 'Set the opening hours',
    },
    {
      done: p.publicUrlSet,
      title: 'The hub’s public address (HUB_PUBLIC_URL)',
      detail: p.publicUrlSet
        ? 'Set: stickers, pairing commands and links use it.'
        : 'Not set: QR stickers, pairing commands and links point at localhost, which phones cannot reach. Set HUB_PUBLIC_URL in the hub’s environment and restart it (docs/OPERATIONS.md).',
    },
    {
      done: p.packages > 0,
      title: 'A package',
      detail:
        p.packages > 0
          ? `${p.packages} active`
          : 'Members need a package that allows a door or machine, or every door refuses them.',
      href: '/admin/packages',
      action: 'Create a package',
    },
    {
      done: p.resources > 0,
      title: 'A door or machine',
      detail: p.resources > 0 ? `${p.resources} active` : 'None yet.',
      href: '/admin/resources',
      action: 'Add a door or machine',
    },
    {
      done: p.pairedBridges > 0,
      title: 'A paired bridge',
      detail:
        p.pairedBridges > 0
          ? `${p.pairedBridges} ${p.pairedBridges === 1 ? 'bridge' : 'bridges'}`
          : 'The Pi at a door or machine, paired with one line.',
      href: '/admin/resources',
      action: 'Pair a bridge',
    },
    {
      done: p.invitedMembers > 0,
      title: 'An invited member',
      detail:
        p.invitedMembers > 0
          ? `${p.invitedMembers} invited`
          : 'Invite a member from their page: they set up their own sign-in.',
      href: '/admin/members',
      action: 'Invite a member',
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
            aria-label={`${i.title}: ${i.done ? 'done' : 'to do'}`}
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
