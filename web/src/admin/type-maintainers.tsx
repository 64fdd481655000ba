import { useEffect, useState } from 'preact/hooks';
import type { ApiError, MemberRecord } from '../api';
import { problemApi, type ResourceTypeMaintainerRecord } from '../problem-api';
import { adminApi } from './admin-api';
import type { ResourceTypeRecord } from './resources-api';
import { t } from '../i18n/i18n';

const fullName = (m: { firstName: string; lastName: string | null }) =>
  `${m.firstName} ${m.lastName ?? ''}`.trim();

/**
 * Maintainers per resource type (docs/DECISIONS.md, "Problem reports"): the members who look
 * after its machines, resolve their problem reports and are told of new ones.
 */
export function MaintainersSection(props: { types: ResourceTypeRecord[] }) {
  return (
    <section aria-labelledby="maintainers-h">
      <h2 id="maintainers-h">{t('admin.type_maintainers.maintainers')}</h2>
      <p class="muted">{t('admin.type_maintainers.maintainersResolveTheProblem')}</p>
      {props.types.length === 0 && <p class="muted">{t('admin.type_maintainers.addAResourceType')}</p>}
      {props.types.map((t) => (
        <TypeMaintainers key={t.id} type={t} />
      ))}
    </section>
  );
}

function TypeMaintainers({ type }: { type: ResourceTypeRecord }) {
  const [list, setList] = useState<ResourceTypeMaintainerRecord[] | null>(null);
  const [q, setQ] = useState('');
  const [found, setFound] = useState<MemberRecord[]>([]);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    problemApi
      .maintainers(type.id)
      .then(setList)
      .catch((e: ApiError) => setError(e.message));
  useEffect(() => {
    void load();
  }, [type.id]);
  useEffect(() => {
    if (!q.trim()) {
      setFound([]);
      return;
    }
    const t = setTimeout(
      () =>
        adminApi
          .members(q.trim())
          .then((all) => setFound(all.slice(0, 5)))
          .catch(() => setFound([])),
      200,
    );
    return () => clearTimeout(t);
  }, [q]);

  async function run(work: () => Promise<unknown>) {
    setError(null);
    try {
      await work();
      setQ('');
      await load();
    } catch (e) {
      setError((e as ApiError).message);
    }
  }
  const ids = new Set((list ?? []).map((m) => m.member));
  return (
    <div class="type-maintainers">
      <h3>{type.name}</h3>
      <ul class="rows" aria-label={t('admin.type_maintainers.maintainersOf', { type: type.name })}>
        {list?.length === 0 && <li class="muted">{t('admin.type_maintainers.noneTheAdminsResolve')}</li>}
        {list?.map((m) => {
          const name = m._embedded
            ? fullName(m._embedded.member)
            : t('admin.common.member', { id: m.member });
          return (
            <li key={m.member}>
              {name}
              <button
                type="button"
                class="secondary"
                onClick={() => void run(() => problemApi.removeMaintainer(type.id, m.member))}
              >
                {t('admin.type_maintainers.remove', { name, type: type.name })}
              </button>
            </li>
          );
        })}
      </ul>
      <label>
        {t('admin.type_maintainers.add', { type: type.name })}
        <input
          type="search"
          placeholder={t('admin.type_maintainers.nameOrEMail')}
          value={q}
          onInput={(e) => setQ((e.target as HTMLInputElement).value)}
        />
      </label>
      <div class="actions">
        {found
          .filter((m) => !ids.has(m.id))
          .map((m) => (
            <button
              key={m.id}
              type="button"
              class="secondary"
              onClick={() => void run(() => problemApi.addMaintainer(type.id, m.id))}
            >
              {t('admin.type_maintainers.make', { name: fullName(m), type: type.name })}
            </button>
          ))}
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </div>
  );
}
