import { useEffect, useState } from 'preact/hooks';
import type { ApiError } from '../api';
import { dateTime } from '../format';
import { type AgentReleaseInfo, type AgentUpdateRecord, agentUpdatesApi } from './agent-updates-api';

type Update = NonNullable<AgentUpdateRecord['update']>;

/** An update's step in words; the end states name the version and, on failure, the reason. */
export function stepText(u: Update): string {
  switch (u.step) {
    case 'requested':
      return `${u.version}: sent to the agent`;
    case 'downloading':
      return `${u.version}: downloading`;
    case 'verifying':
      return `${u.version}: checking the signature and version`;
    case 'installed':
      return `${u.version}: installed beside the running version`;
    case 'waitingForIdle':
      return `${u.version}: installed, waiting until the machine is switched off`;
    case 'restarting':
      return `${u.version}: restarting`;
    case 'connected':
      return `${u.version}: running, connected to the hub`;
    case 'rolledBack':
      return `${u.version} rolled back: ${u.error ?? 'no reason given'}`;
    case 'failed':
      return `${u.version} not installed: ${u.error ?? 'no reason given'}`;
  }
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
    const t = setInterval(() => void load(), running ? 2000 : 60_000);
    return () => clearInterval(t);
  }, [running]);

  /** Runs an action; its answer (or why it failed) is the notice. */
  const act = async (what: string, work: () => Promise<string>) => {
    setNotice(null);
    try {
      setNotice(await work());
    } catch (e) {
      setNotice(`${what} failed: ${(e as ApiError).message}`);
    }
    void load();
  };

  const updatable = (bridges ?? []).filter((b) => b.updateAvailable && b.online && finished(b.update));
  return (
    <section aria-labelledby="updates-h">
      <h2 id="updates-h">Agent updates</h2>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {release && !release.available && (
        <p class="muted">
          The hub has no agent release to offer: <code>npm run build</code> on the hub makes one.
        </p>
      )}
      {release?.available && (
        <p>
          The hub offers agent {release.version}.{' '}
          <button
            type="button"
            class="secondary"
            disabled={updatable.length === 0}
            onClick={() =>
              void act('Updates started', async () => {
                const started = await agentUpdatesApi.updateAll();
                const n = started.bridges.filter((b) => b.outcome === 'started').length;
                return `Updating ${n} bridge${n === 1 ? '' : 's'} to ${started.version}`;
              })
            }
          >
            Update all bridges
          </button>
        </p>
      )}
      {notice && (
        <p role="status" class="notice">
          {notice}
        </p>
      )}
      {bridges === null && !error && <p role="status">Loading…</p>}
      {bridges && bridges.length === 0 && <p class="muted">No bridges yet.</p>}
      {bridges && bridges.length > 0 && (
        <ul aria-label="Agent versions" class="rows">
          {bridges.map((b) => (
            <li
              key={b.resource}
              class={b.update?.step === 'failed' || b.update?.step === 'rolledBack' ? 'bad' : ''}
            >
              <span>
                <strong>{b.name}</strong>: agent {b.agentVersion ?? 'unknown'}
                {!b.online && ' (offline)'}
                {b.update && (
                  <>
                    <br />
                    <span data-testid="update-step">{stepText(b.update)}</span>{' '}
                    <span class="muted">(started {dateTime(b.update.startedAt)})</span>
                  </>
                )}
              </span>
              {b.updateAvailable && release?.available && (
                <button
                  type="button"
                  class="secondary"
                  disabled={!b.online || !finished(b.update)}
                  onClick={() =>
                    void act(`Updating ${b.name}`, async () => {
                      await agentUpdatesApi.update(b.resource);
                      return `Updating ${b.name} to ${release.version}`;
                    })
                  }
                >
                  {`Update ${b.name}`}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
