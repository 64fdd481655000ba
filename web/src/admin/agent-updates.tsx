import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiError } from '../api';
import { dateTime } from '../format';
import { rich, slot, t } from '../i18n/i18n';
import { type AgentReleaseInfo, type AgentUpdateRecord, agentUpdatesApi } from './agent-updates-api';

/** The command that makes an agent release on the hub (the same in every language). */
const buildCommand = 'npm run build';

type Update = NonNullable<AgentUpdateRecord['update']>;

/** An update's step in words; the end states name the version and, on failure, the reason. */
export function stepText(u: Update): string {
  const error = u.error ?? t('admin.agent_updates.noReason');
  return t(`admin.agent_updates.step.${u.step}`, { version: u.version, error });
}

const finished = (u: Update | null) =>
  u === null || u.step === 'connected' || u.step === 'failed' || u.step === 'rolledBack';

/**
 * Agent updates on the dashboard (docs/OPERATIONS.md, "Updating agents"): the release the hub
 * offers, each bridge's agent version and last update with its progress, and the buttons that
 * start updates, one bridge at a time or every bridge with an older agent.
 */
export function AgentUpdates() {
  const [release, setRelease] = useState<AgentReleaseInfo | null>(null);
  const [bridges, setBridges] = useState<AgentUpdateRecord[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const load = () =>
    Promise.all([agentUpdatesApi.release(), agentUpdatesApi.list()])
      .then(([r, b]) => {
        setRelease(r);
        setBridges(b);
        setError(null);
      })
      .catch((e: ApiError) => setError(e.message));

  const running = (bridges ?? []).some((b) => !finished(b.update));
  useEffect(() => {
    void load();
  }, []);
  // While an update runs its steps come every few seconds; otherwise a look a minute is enough.
  useEffect(() => {
    const timer = setInterval(() => void load(), running ? 2000 : 60_000);
    return () => clearInterval(timer);
  }, [running]);
  // "Updating ..." says what was started: once every update has ended, each bridge's own line
  // tells how it went, and the notice goes.
  const wasRunning = useRef(false);
  useEffect(() => {
    if (wasRunning.current && !running) setNotice(null);
    wasRunning.current = running;
  }, [running]);

  /** Runs an action; its answer (or why it failed) is the notice. */
  const act = async (what: string, work: () => Promise<string>) => {
    setNotice(null);
    try {
      setNotice(await work());
    } catch (e) {
      setNotice(t('admin.agent_updates.failed', { what, error: (e as ApiError).message }));
    }
    void load();
  };

  const updatable = (bridges ?? []).filter((b) => b.updateAvailable && b.online && finished(b.update));
  return (
    <section aria-labelledby="updates-h">
      <h2 id="updates-h">{t('admin.agent_updates.title')}</h2>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {release && !release.available && (
        <p class="muted">
          {rich(t('admin.agent_updates.noRelease', { command: slot('command') }), {
            command: <code>{buildCommand}</code>,
          })}
        </p>
      )}
      {release?.available && (
        <p>
          {t('admin.agent_updates.offers', { version: release.version })}{' '}
          <button
            type="button"
            class="secondary"
            disabled={updatable.length === 0}
            onClick={() =>
              void act(t('admin.agent_updates.updatesStarted'), async () => {
                const started = await agentUpdatesApi.updateAll();
                const count = started.bridges.filter((b) => b.outcome === 'started').length;
                return t('admin.agent_updates.updating', { count, version: started.version });
              })
            }
          >
            {t('admin.agent_updates.updateAll')}
          </button>
        </p>
      )}
      {notice && (
        <p role="status" class="notice">
          {notice}
        </p>
      )}
      {bridges === null && !error && <p role="status">{t('admin.agent_updates.loading')}</p>}
      {bridges && bridges.length === 0 && <p class="muted">{t('admin.agent_updates.noBridges')}</p>}
      {bridges && bridges.length > 0 && (
        <ul aria-label={t('admin.agent_updates.versions')} class="rows">
          {bridges.map((b) => (
            <li
              key={b.resource}
              class={b.update?.step === 'failed' || b.update?.step === 'rolledBack' ? 'bad' : ''}
            >
              <span>
                <strong>{b.name}</strong>
                {t('admin.agent_updates.agent', {
                  version: b.agentVersion ?? t('admin.agent_updates.unknown'),
                })}
                {!b.online && t('admin.agent_updates.offline')}
                {b.update && (
                  <>
                    <br />
                    <span data-testid="update-step">{stepText(b.update)}</span>{' '}
                    <span class="muted">
                      {t('admin.agent_updates.started', { at: dateTime(b.update.startedAt) })}
                    </span>
                  </>
                )}
              </span>
              {b.updateAvailable && release?.available && (
                <button
                  type="button"
                  class="secondary"
                  disabled={!b.online || !finished(b.update)}
                  onClick={() =>
                    void act(t('admin.agent_updates.updatingName', { name: b.name }), async () => {
                      await agentUpdatesApi.update(b.resource);
                      return t('admin.agent_updates.updatingNameTo', {
                        name: b.name,
                        version: release.version,
                      });
                    })
                  }
                >
                  {t('admin.agent_updates.update', { name: b.name })}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
