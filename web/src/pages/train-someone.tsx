import type { TrainingCourseRecord, TrainingTapRecord } from '@makerspace/shared';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, call } from '../api';
import { t } from '../i18n/i18n';

type Trainee = { id: number; firstName: string; lastName: string | null };

const trainApi = {
  /** The courses the caller trains that unlock this resource. */
  myCourses: (resource: number, me: number) =>
    call<TrainingCourseRecord[]>('GET', `/training-courses?resource=${resource}&trainer=${me}&state=active`),
  waitForTap: (resource: number, trainingCourse: number) =>
    call<TrainingTapRecord>('POST', `/resources/${resource}/training-taps`, { trainingCourse }),
  tap: (id: number) => call<TrainingTapRecord>('GET', `/training-taps/${id}`),
  stop: (id: number) => call<void>('DELETE', `/training-taps/${id}`),
  find: (course: number, q: string) =>
    call<Trainee[]>('GET', `/training-courses/${course}/trainees?q=${encodeURIComponent(q)}`),
  record: (member: number, trainingCourse: number) =>
    call<{ untilDate: string | null }>('POST', `/members/${member}/trainings`, { trainingCourse }),
};

const nameOf = (m: { firstName: string; lastName: string | null }) =>
  [m.firstName, m.lastName].filter(Boolean).join(' ');
const message = (e: unknown) => (e instanceof ApiError ? e.message : t('common.unreachable'));

/**
 * "Train someone" on a machine's page, for the trainers of a course that unlocks it: the trainee
 * taps their card at this machine's reader (the hub waits 2 minutes for it), or the trainer picks
 * them by name. The training gets the course's validity and the trainer's signature.
 */
export function TrainSomeone({ resource }: { resource: number }) {
  const [courses, setCourses] = useState<TrainingCourseRecord[]>([]);
  const [open, setOpen] = useState(false);
  const [course, setCourse] = useState<number | null>(null);
  const [wait, setWait] = useState<TrainingTapRecord | null>(null);
  const [q, setQ] = useState('');
  const [found, setFound] = useState<Trainee[]>([]);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api
      .me()
      .then((me) => trainApi.myCourses(resource, me.id))
      .then((list) => {
        setCourses(list);
        setCourse(list[0]?.id ?? null);
      })
      .catch(() => setCourses([]));
  }, [resource]);

  // While waiting for the tap: ask every second how it went.
  useEffect(() => {
    if (wait?.state !== 'waiting') return;
    const timer = setInterval(() => {
      trainApi
        .tap(wait.id)
        .then((w) => {
          setWait(w);
          if (w.state === 'recorded' && w._embedded.trainee)
            setDone(t('train.recordedFor', { name: nameOf(w._embedded.trainee) }));
          if (w.state === 'expired') setError(t('train.noTap'));
        })
        .catch((e) => setError(message(e)));
    }, 1000);
    return () => clearInterval(timer);
  }, [wait?.id, wait?.state]);

  useEffect(() => {
    if (!open || course === null || q.trim().length < 1) {
      setFound([]);
      return;
    }
    const t = setTimeout(
      () =>
        trainApi
          .find(course, q.trim())
          .then(setFound)
          .catch(() => setFound([])),
      200,
    );
    return () => clearTimeout(t);
  }, [q, course, open]);

  if (courses.length === 0) return null;
  const title = courses.find((c) => c.id === course)?.title ?? '';

  async function startTap() {
    if (course === null) return;
    setError(null);
    setDone(null);
    try {
      setWait(await trainApi.waitForTap(resource, course));
    } catch (e) {
      setError(message(e));
    }
  }
  async function stopTap() {
    if (wait) await trainApi.stop(wait.id).catch(() => undefined);
    setWait(null);
  }
  async function pick(trainee: Trainee) {
    if (course === null) return;
    setError(null);
    try {
      await trainApi.record(trainee.id, course);
      setDone(t('train.recordedFor', { name: nameOf(trainee) }));
      setQ('');
    } catch (e) {
      setError(message(e));
    }
  }

  return (
    <section aria-label={t('train.title')} class="train">
      {!open ? (
        <button type="button" class="secondary" onClick={() => setOpen(true)}>
          {t('train.title')}
        </button>
      ) : (
        <>
          <h2>{t('train.title')}</h2>
          {courses.length > 1 && (
            <label>
              {t('train.course')}
              <select
                value={String(course)}
                onChange={(e) => setCourse(Number((e.target as HTMLSelectElement).value))}
              >
                {courses.map((c) => (
                  <option key={c.id} value={String(c.id)}>
                    {c.title}
                  </option>
                ))}
              </select>
            </label>
          )}
          {courses.length === 1 && <p>{t('train.courseIs', { title })}</p>}
          {wait?.state === 'waiting' ? (
            <>
              <p role="status" data-testid="train-waiting">
                {t('train.askTap')}
              </p>
              <button type="button" class="secondary" onClick={() => void stopTap()}>
                {t('train.stopWaiting')}
              </button>
            </>
          ) : (
            <button type="button" class="primary" onClick={() => void startTap()}>
              {t('train.traineeTaps')}
            </button>
          )}
          <label>
            {t('train.findByName')}
            <input type="search" value={q} onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
          </label>
          {found.length > 0 && (
            <ul class="plain" aria-label={t('train.found')}>
              {found.map((trainee) => (
                <li key={trainee.id}>
                  <button type="button" class="secondary" onClick={() => void pick(trainee)}>
                    {t('train.record', { title, name: nameOf(trainee) })}
                  </button>
                </li>
              ))}
            </ul>
          )}
          {done && (
            <p role="status" class="outcome success" data-testid="train-done">
              {done}
            </p>
          )}
          {error && (
            <p role="alert" class="outcome error">
              {error}
            </p>
          )}
        </>
      )}
    </section>
  );
}
