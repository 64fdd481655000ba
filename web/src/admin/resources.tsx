import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ApiError, ResourceStatus } from '../api';
import { Field } from '../field';
import { dateTime } from '../format';
import { rich, slot, t, tOr } from '../i18n/i18n';
import { useLive } from '../live';
import { adminApi, type ResourceRecord } from './admin-api';
import { BridgeButtons, PairingPanel, useBridgeControl } from './bridge-actions';
import { OpenProblemReports } from './problem-reports';
import { MaintainersSection } from './type-maintainers';
import { ResourceForm } from './resource-form';
import { type ResourceTypeRecord, resourcesApi, type SpaceRecord } from './resources-api';

/** The bridge's state: `noBridge`, `online` or `offline` (a badge class and `admin.dashboard.*`). */
const bridgeKey = (s: ResourceStatus | undefined) =>
  !s?.bridge ? ('noBridge' as const) : s.online ? ('online' as const) : ('offline' as const);
const bridgeState = (s: ResourceStatus | undefined) => t(`admin.dashboard.${bridgeKey(s)}`);

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
      .then(([r, list]) => {
        setResources(r);
        setTypes(list);
      })
      .catch((e: ApiError) => setError(e.message));
  useEffect(() => {
    void load();
    resourcesApi
      .spaces()
      .then(setSpaces)
      .catch(() => {});
  }, []);

  const typeNames = useMemo(() => new Map(types.map((type) => [type.id, type.name])), [types]);
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
      <h1>{t('admin.resources.title')}</h1>
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
            <h2 id="resources-h">{t('admin.dashboard.doorsAndMachines')}</h2>
            <div class="actions">
              <button
                type="button"
                class="primary"
                onClick={() => {
                  setCreating(true);
                  setSelectedId(null);
                }}
              >
                {t('admin.resource_form.newResource')}
              </button>
              <a href={stickerIds.length ? `/stickers?ids=${stickerIds.join(',')}` : '/stickers'}>
                {stickerIds.length
                  ? t('admin.resources.printChosen', { count: stickerIds.length })
                  : t('admin.resources.printAll')}
              </a>
            </div>
            {resources === null && !error && <p role="status">{t('admin.dashboard.loading')}</p>}
            <table class="list" aria-label={t('admin.dashboard.doorsAndMachines')}>
              <thead>
                <tr>
                  <th scope="col">{t('admin.resources.sticker')}</th>
                  <th scope="col">{t('admin.resources.name')}</th>
                  <th scope="col">{t('admin.resources.type')}</th>
                  <th scope="col">{t('admin.resources.control')}</th>
                  <th scope="col">{t('admin.resources.state')}</th>
                  <th scope="col">{t('admin.resources.bridge')}</th>
                </tr>
              </thead>
              <tbody>
                {(resources ?? []).map((r) => {
                  const status = live.statuses.get(r.id);
                  return (
                    <tr key={r.id} aria-selected={selectedId === r.id} aria-label={r.name}>
                      <td data-label={t('admin.resources.sticker')}>
                        <input
                          type="checkbox"
                          aria-label={t('admin.resources.stickerOf', { name: r.name })}
                          checked={forStickers.has(r.id)}
                          onChange={(e) => {
                            const next = new Set(forStickers);
                            if ((e.target as HTMLInputElement).checked) next.add(r.id);
                            else next.delete(r.id);
                            setForStickers(next);
                          }}
                        />
                      </td>
                      <td data-label={t('admin.resources.name')}>
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
                      <td data-label={t('admin.resources.type')}>
                        {r.type === null ? '' : (typeNames.get(r.type) ?? '')}
                      </td>
                      <td data-label={t('admin.resources.control')}>
                        {tOr(`admin.resources.controlType.${r.controlType}`, r.controlType)}
                      </td>
                      <td data-label={t('admin.resources.state')}>
                        {tOr(`admin.resources.resourceState.${r.state}`, r.state)}
                      </td>
                      <td data-label={t('admin.resources.bridge')}>
                        <span
                          class={`badge ${bridgeKey(status) === 'noBridge' ? 'no-bridge' : bridgeKey(status)}`}
                          data-testid="bridge-state"
                        >
                          {bridgeState(status)}
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
        <section aria-label={t('admin.resources.details')}>
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
          {!selected && !creating && <p class="muted">{t('admin.resources.choose')}</p>}
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
        <a href={`/admin/resources/${r.id}/log`}>{t('admin.resources.logOf', { name: r.name })}</a>
      </p>
      <OpenProblemReports
        resource={r.id}
        onResolved={() => resourcesApi.resource(r.id).then(props.onSaved)}
      />
      <ResourceForm resource={r} types={props.types} spaces={props.spaces} onSaved={props.onSaved} />
      <h3>{t('admin.resources.bridge')}</h3>
      <dl class="facts">
        <dt>{t('admin.resources.state')}</dt>
        <dd data-testid="details-bridge-state">{bridgeState(s)}</dd>
        {s?.bridge && (
          <>
            <dt>{t('admin.dashboard.lastHeartbeat')}</dt>
            <dd>{s.lastSeenAt ? dateTime(s.lastSeenAt) : t('admin.dashboard.never')}</dd>
            <dt>{t('admin.dashboard.agent')}</dt>
            <dd>{s.agentVersion ?? t('admin.dashboard.unknown')}</dd>
            <dt>{t('admin.dashboard.relay')}</dt>
            <dd>
              {s.relay === 'on'
                ? t('admin.dashboard.onSince', { since: s.relaySince ? dateTime(s.relaySince) : '?' })
                : t('admin.dashboard.off')}
            </dd>
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
        <h3>{t('admin.resources.switchOnCode')}</h3>
        <p>{t('admin.resources.totp', { name: r.name })}</p>
      </>
    );
  }
  async function change(e: Event) {
    e.preventDefault();
    setError(null);
    try {
      const saved = await resourcesApi.updateResource(r, { switchOnCode: code.trim() || null });
      setCode('');
      props.setNotice(t('admin.resources.newCodeNotice', { name: r.name, code: saved.switchOnCode }));
      props.onSaved(saved);
    } catch (err) {
      setError((err as ApiError).message);
    }
  }
  return (
    <form onSubmit={change} aria-label={t('admin.resources.codeOf', { name: r.name })}>
      <h3>{t('admin.resources.switchOnCode')}</h3>
      <p>
        {rich(t('admin.resources.currentCode', { code: slot('code'), link: slot('link') }), {
          code: <code data-testid="switch-on-code">{r.switchOnCode}</code>,
          link: <a href={`/stickers?ids=${r.id}`}>{t('admin.resources.printSticker', { name: r.name })}</a>,
        })}
      </p>
      <Field label={t('admin.resources.newCode')} value={code} set={setCode} autoComplete="off" />
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <button type="submit" class="secondary">
        {t('admin.resources.changeCode', { name: r.name })}
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
      setError(t('admin.bridge_actions.failed', { what, error: (e as ApiError).message }));
      return false;
    }
  }
  return (
    <section aria-labelledby="types-h">
      <h2 id="types-h">{t('admin.resources.types')}</h2>
      <ul class="rows" aria-label={t('admin.resources.types')}>
        {props.types.length === 0 && <li class="muted">{t('admin.resources.noTypes')}</li>}
        {props.types.map((type) => (
          <TypeRow key={`${type.id}:${type.lockVersion}`} type={type} run={run} />
        ))}
      </ul>
      <form
        class="actions add-type"
        aria-label={t('admin.resources.addTypeForm')}
        onSubmit={async (e) => {
          e.preventDefault();
          const n = name.trim();
          if (await run(t('admin.resources.added', { name: n }), () => resourcesApi.createType(n)))
            setName('');
        }}
      >
        <label class="grow">
          {t('admin.resources.newType')}
          <input
            value={name}
            required
            maxLength={200}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit" class="secondary">
          {t('admin.resources.addType')}
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
  type,
  run,
}: {
  type: ResourceTypeRecord;
  run: (what: string, work: () => Promise<unknown>) => Promise<boolean>;
}) {
  const [name, setName] = useState(type.name);
  return (
    <li class="type-row">
      <input
        aria-label={t('admin.resources.nameOf', { name: type.name })}
        value={name}
        maxLength={200}
        onInput={(e) => setName((e.target as HTMLInputElement).value)}
      />
      <button
        type="button"
        class="secondary"
        disabled={name.trim() === type.name}
        onClick={() =>
          void run(t('admin.resources.renamed', { name: type.name, to: name.trim() }), () =>
            resourcesApi.renameType(type, name.trim()),
          )
        }
      >
        {t('admin.resources.rename', { name: type.name })}
      </button>
      <button
        type="button"
        class="secondary"
        onClick={() => {
          if (confirm(t('admin.resources.confirmDelete', { name: type.name }))) {
            void run(t('admin.resources.deleted', { name: type.name }), () =>
              resourcesApi.deleteType(type.id),
            );
          }
        }}
      >
        {t('admin.resources.delete', { name: type.name })}
      </button>
    </li>
  );
}
