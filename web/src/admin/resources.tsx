import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ApiError, ResourceStatus } from '../api';
import { Field } from '../field';
import { dateTime } from '../format';
import { useLive } from '../live';
import { adminApi, type ResourceRecord } from './admin-api';
import { BridgeButtons, PairingPanel, useBridgeControl } from './bridge-actions';
import { OpenProblemReports } from './problem-reports';
import { MaintainersSection } from './type-maintainers';
import { ResourceForm } from './resource-form';
import { type ResourceTypeRecord, resourcesApi, type SpaceRecord } from './resources-api';

const bridgeState = (s: ResourceStatus | undefined) =>
  !s?.bridge ? 'No bridge' : s.online ? 'Online' : 'Offline';

/**
 * Resources and bridges: the account's doors and machines with type, control type and bridge
 * state; create and edit them and their types; pair, rotate, remote switch-on and -off; the
 * switch-on code and its stickers.
 */
export function ResourcesPage() {
  const live = useLive();
  const bridge = useBridgeControl();
  const [resources, setResources] = useState<ResourceRecord[] | null>(null);
  const [types, setTypes] = useState<ResourceTypeRecord[]>([]);
  const [spaces, setSpaces] = useState<SpaceRecord[]>([]);
  const [selectedId, setSelectedId] = useState<number | null>(null);
  const [creating, setCreating] = useState(false);
  const [forStickers, setForStickers] = useState<Set<number>>(new Set());
  const [error, setError] = useState<string | null>(null);

  const load = () =>
    Promise.all([adminApi.resources(), resourcesApi.types()])
      .then(([r, t]) => {
        setResources(r);
        setTypes(t);
      })
      .catch((e: ApiError) => setError(e.message));
  useEffect(() => {
    void load();
    resourcesApi
      .spaces()
      .then(setSpaces)
      .catch(() => {});
  }, []);

  const typeNames = useMemo(() => new Map(types.map((t) => [t.id, t.name])), [types]);
  const selected = resources?.find((r) => r.id === selectedId) ?? null;
  const names = new Map((resources ?? []).map((r) => [r.id, r.name]));
  const stickerIds = [...forStickers].filter((id) => names.has(id));

  const saved = (r: ResourceRecord) => {
    setCreating(false);
    setSelectedId(r.id);
    setResources((all) => (all ?? []).filter((x) => x.id !== r.id).concat(r));
    void load();
  };

  return (
    <main class="admin">
      <h1>Resources and bridges</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {bridge.notice && (
        <p role="status" class="notice">
          {bridge.notice}
        </p>
      )}
      {bridge.pairing && (
        <PairingPanel
          pairing={bridge.pairing}
          name={names.get(bridge.pairing.resource) ?? ''}
          onClose={bridge.closePairing}
        />
      )}
      <div class="admin-grid">
        <div>
          <section aria-labelledby="resources-h">
            <h2 id="resources-h">Doors and machines</h2>
            <div class="actions">
              <button
                type="button"
                class="primary"
                onClick={() => {
                  setCreating(true);
                  setSelectedId(null);
                }}
              >
                New resource
              </button>
              <a href={stickerIds.length ? `/stickers?ids=${stickerIds.join(',')}` : '/stickers'}>
                {stickerIds.length
                  ? `Print stickers of ${stickerIds.length} chosen`
                  : 'Print stickers of every resource'}
              </a>
            </div>
            {resources === null && !error && <p role="status">Loading…</p>}
            <table class="list" aria-label="Doors and machines">
              <thead>
                <tr>
                  <th scope="col">Sticker</th>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Control</th>
                  <th scope="col">State</th>
                  <th scope="col">Bridge</th>
                </tr>
              </thead>
              <tbody>
                {(resources ?? []).map((r) => {
                  const state = bridgeState(live.statuses.get(r.id));
                  return (
                    <tr key={r.id} aria-selected={selectedId === r.id} aria-label={r.name}>
                      <td data-label="Sticker">
                        <input
                          type="checkbox"
                          aria-label={`Sticker of ${r.name}`}
                          checked={forStickers.has(r.id)}
                          onChange={(e) => {
                            const next = new Set(forStickers);
                            if ((e.target as HTMLInputElement).checked) next.add(r.id);
                            else next.delete(r.id);
                            setForStickers(next);
                          }}
                        />
                      </td>
                      <td data-label="Name">
                        <button
                          type="button"
                          class="link"
                          onClick={() => {
                            setSelectedId(r.id);
                            setCreating(false);
                          }}
                        >
                          {r.name}
                        </button>
                      </td>
                      <td data-label="Type">{r.type === null ? '' : (typeNames.get(r.type) ?? '')}</td>
                      <td data-label="Control">{r.controlType}</td>
                      <td data-label="State">{r.state}</td>
                      <td data-label="Bridge">
                        <span
                          class={`badge ${state.toLowerCase().replace(/ /g, '-')}`}
                          data-testid="bridge-state"
                        >
                          {state}
                        </span>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </section>
          <TypesSection types={types} reload={load} setNotice={bridge.setNotice} />
          <MaintainersSection types={types} />
        </div>
        <section aria-label="Resource details">
          {creating && <ResourceForm resource={null} types={types} spaces={spaces} onSaved={saved} />}
          {selected && !creating && (
            <ResourceDetails
              key={selected.id}
              r={selected}
              s={live.statuses.get(selected.id)}
              types={types}
              spaces={spaces}
              bridge={bridge}
              onSaved={saved}
            />
          )}
          {!selected && !creating && <p class="muted">Choose a resource to edit it and its bridge.</p>}
        </section>
      </div>
    </main>
  );
}

function ResourceDetails(props: {
  r: ResourceRecord;
  s: ResourceStatus | undefined;
  types: ResourceTypeRecord[];
  spaces: SpaceRecord[];
  bridge: ReturnType<typeof useBridgeControl>;
  onSaved: (r: ResourceRecord) => void;
}) {
  const { r, s, bridge } = props;
  return (
    <>
      <p>
        <a href={`/admin/resources/${r.id}/log`}>{`Log of ${r.name}`}</a>
      </p>
      <OpenProblemReports
        resource={r.id}
        onResolved={() => resourcesApi.resource(r.id).then(props.onSaved)}
      />
      <ResourceForm resource={r} types={props.types} spaces={props.spaces} onSaved={props.onSaved} />
      <h3>Bridge</h3>
      <dl class="facts">
        <dt>State</dt>
        <dd data-testid="details-bridge-state">{bridgeState(s)}</dd>
        {s?.bridge && (
          <>
            <dt>Last heartbeat</dt>
            <dd>{s.lastSeenAt ? dateTime(s.lastSeenAt) : 'never'}</dd>
            <dt>Agent</dt>
            <dd>{s.agentVersion ?? 'unknown'}</dd>
            <dt>Relay</dt>
            <dd>{s.relay === 'on' ? `on since ${s.relaySince ? dateTime(s.relaySince) : '?'}` : 'off'}</dd>
          </>
        )}
      </dl>
      <BridgeButtons r={r} s={s} act={bridge.act} pair={(x) => void bridge.pair(x)} />
      <CodeSection r={r} onSaved={props.onSaved} setNotice={bridge.setNotice} />
    </>
  );
}

/** The switch-on code printed on the sticker: a new one makes every printed sticker out of date. */
function CodeSection(props: {
  r: ResourceRecord;
  onSaved: (r: ResourceRecord) => void;
  setNotice: (text: string | null) => void;
}) {
  const { r } = props;
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  if (r.codeMode === 'totp') {
    return (
      <>
        <h3>Switch-on code</h3>
        <p>{r.name} uses time-based codes that its agent shows on a display; there is no sticker code.</p>
      </>
    );
  }
  async function change(e: Event) {
    e.preventDefault();
    setError(null);
    try {
      const saved = await resourcesApi.updateResource(r, { switchOnCode: code.trim() || null });
      setCode('');
      props.setNotice(
        `New switch-on code of ${r.name}: ${saved.switchOnCode}. Stickers with the old code now say "out of date": print a new one.`,
      );
      props.onSaved(saved);
    } catch (err) {
      setError((err as ApiError).message);
    }
  }
  return (
    <form onSubmit={change} aria-label={`Switch-on code of ${r.name}`}>
      <h3>Switch-on code</h3>
      <p>
        Current code: <code data-testid="switch-on-code">{r.switchOnCode}</code> (on the sticker's QR code:{' '}
        <a href={`/stickers?ids=${r.id}`}>{`Print the sticker of ${r.name}`}</a>)
      </p>
      <Field label="New code (empty: a random one)" value={code} set={setCode} autoComplete="off" />
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <button type="submit" class="secondary">
        {`Change the code of ${r.name}`}
      </button>
    </form>
  );
}

/** Resource types (laser cutters, 3D printers, ...), which packages may grant as a whole. */
function TypesSection(props: {
  types: ResourceTypeRecord[];
  reload: () => Promise<unknown>;
  setNotice: (text: string | null) => void;
}) {
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  async function run(what: string, work: () => Promise<unknown>) {
    setError(null);
    try {
      await work();
      props.setNotice(what);
      await props.reload();
      return true;
    } catch (e) {
      setError(`${what} failed: ${(e as ApiError).message}`);
      return false;
    }
  }
  return (
    <section aria-labelledby="types-h">
      <h2 id="types-h">Resource types</h2>
      <ul class="rows" aria-label="Resource types">
        {props.types.length === 0 && <li class="muted">No types yet.</li>}
        {props.types.map((t) => (
          <TypeRow key={`${t.id}:${t.lockVersion}`} t={t} run={run} />
        ))}
      </ul>
      <form
        class="actions add-type"
        aria-label="Add a resource type"
        onSubmit={async (e) => {
          e.preventDefault();
          const n = name.trim();
          if (await run(`Added the type ${n}`, () => resourcesApi.createType(n))) setName('');
        }}
      >
        <label class="grow">
          New resource type
          <input
            value={name}
            required
            maxLength={200}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit" class="secondary">
          Add type
        </button>
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </section>
  );
}

function TypeRow({
  t,
  run,
}: {
  t: ResourceTypeRecord;
  run: (what: string, work: () => Promise<unknown>) => Promise<boolean>;
}) {
  const [name, setName] = useState(t.name);
  return (
    <li class="type-row">
      <input
        aria-label={`Name of the type ${t.name}`}
        value={name}
        maxLength={200}
        onInput={(e) => setName((e.target as HTMLInputElement).value)}
      />
      <button
        type="button"
        class="secondary"
        disabled={name.trim() === t.name}
        onClick={() =>
          void run(`Renamed the type ${t.name} to ${name.trim()}`, () =>
            resourcesApi.renameType(t, name.trim()),
          )
        }
      >
        {`Rename the type ${t.name}`}
      </button>
      <button
        type="button"
        class="secondary"
        onClick={() => {
          if (confirm(`Delete the type ${t.name}? Its resources stay, without a type.`)) {
            void run(`Deleted the type ${t.name}`, () => resourcesApi.deleteType(t.id));
          }
        }}
      >
        {`Delete the type ${t.name}`}
      </button>
    </li>
  );
}
