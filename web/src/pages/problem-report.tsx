import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { dateTime } from '../format';
import { problemApi, type ProblemReportRecord, type ProblemSeverity } from '../problem-api';
import { isAdmin, useAuth } from '../session';
import './problem-report.css';
import { t } from '../i18n/i18n';

/** The largest photo the hub takes (PROBLEM_PHOTO_MAX_BYTES of shared/, whose values stay out of the app). */
const MAX_BYTES = 5 * 1024 * 1024;
const MAX_SIDE = 2560;

/**
 * A photo the hub takes: a JPEG or PNG of at most 5 MB goes as it is; a bigger one, or another
 * type (HEIC from some phones), is drawn upright onto a canvas of at most 2560 px and sent as a
 * JPEG (which carries no metadata either).
 */
async function fitPhoto(file: File): Promise<Blob> {
  if ((file.type === 'image/jpeg' || file.type === 'image/png') && file.size <= MAX_BYTES) return file;
  const bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' });
  const scale = Math.min(1, MAX_SIDE / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(bitmap.width * scale));
  canvas.height = Math.max(1, Math.round(bitmap.height * scale));
  canvas.getContext('2d')?.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  return new Promise((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('no image'))), 'image/jpeg', 0.85),
  );
}

const errorWords = (err: unknown) => (err instanceof ApiError ? err.message : t('common.unreachable'));

/**
 * "Report a problem" on the machine page (docs/WEB.md): what is wrong, how bad (an unsafe report
 * takes the machine out of use at once), and a photo from the phone's camera if the member
 * wants. `onReported` reloads the page's verdict.
 */
export function ReportProblem(props: {
  resourceId: number;
  typeId: number | null;
  noun: 'door' | 'machine';
  onReported: () => unknown;
}) {
  const { noun } = props;
  const [seen, setSeen] = useState(0);
  const [open, setOpen] = useState(false);
  const [description, setDescription] = useState('');
  const [severity, setSeverity] = useState<ProblemSeverity | null>(null);
  const [photo, setPhoto] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);

  async function send(e: Event) {
    e.preventDefault();
    if (!severity || !description.trim()) return;
    setBusy(true);
    setError(null);
    try {
      const report = await problemApi.report(props.resourceId, description.trim(), severity);
      let photoNote = '';
      if (photo) {
        try {
          await problemApi.putPhoto(report.id, await fitPhoto(photo));
        } catch (err) {
          photoNote = t('problem.photoFailed', {
            reason: err instanceof ApiError ? err.message : t('problem.unreadable'),
          });
        }
      }
      const words =
        severity === 'info'
          ? t('problem.thanksInfo', { context: noun })
          : report.lockedResource
            ? t('problem.thanksLocked', { context: noun })
            : t('problem.thanksAlready', { context: noun });
      setDone(words + photoNote);
      setOpen(false);
      setDescription('');
      setSeverity(null);
      setPhoto(null);
      setSeen((n) => n + 1);
      void props.onReported();
    } catch (err) {
      setError(errorWords(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-label={t('problem.problems')} class="problem">
      <OpenReportsHere
        resourceId={props.resourceId}
        typeId={props.typeId}
        reload={seen}
        onResolved={() => {
          setDone(null);
          void props.onReported();
        }}
      />
      {done && (
        <p class="outcome success" role="status">
          {done}
        </p>
      )}
      {!open ? (
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setOpen(true);
            setDone(null);
          }}
        >
          {t('problem.report')}
        </button>
      ) : (
        <form onSubmit={send} aria-label={t('problem.report')}>
          <h2>{t('problem.report')}</h2>
          <label>
            {t('problem.whatWrong')}
            <textarea
              name="description"
              required
              maxLength={4000}
              rows={3}
              value={description}
              onInput={(e) => setDescription((e.target as HTMLTextAreaElement).value)}
            />
          </label>
          <fieldset>
            <legend>{t('problem.howBad')}</legend>
            <label class="choice">
              <input
                type="radio"
                name="severity"
                value="unsafe"
                required
                checked={severity === 'unsafe'}
                onChange={() => setSeverity('unsafe')}
              />
              {t('problem.unsafe', { context: noun })}
            </label>
            <label class="choice">
              <input
                type="radio"
                name="severity"
                value="info"
                checked={severity === 'info'}
                onChange={() => setSeverity('info')}
              />
              {t('problem.notDangerous')}
            </label>
          </fieldset>
          <label>
            {t('problem.photo')}
            <input
              type="file"
              name="photo"
              accept="image/*"
              capture="environment"
              onChange={(e) => setPhoto((e.target as HTMLInputElement).files?.[0] ?? null)}
            />
          </label>
          {error && (
            <p class="outcome error" role="alert">
              {error}
            </p>
          )}
          <div class="problem-actions">
            <button
              type="submit"
              class="primary"
              disabled={busy || !severity || !description.trim()}
              aria-busy={busy}
            >
              {busy ? t('problem.sending') : t('problem.send')}
            </button>
            <button type="button" class="secondary" onClick={() => setOpen(false)} disabled={busy}>
              {t('common.cancel')}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/**
 * The machine's open reports the member sees: their own ("You reported this"), or, for its
 * maintainers and admins, every one with Resolve and a note (maintainers have no console).
 */
function OpenReportsHere(props: {
  resourceId: number;
  typeId: number | null;
  reload: number;
  onResolved: () => void;
}) {
  const auth = useAuth();
  const me = auth.state === 'signedIn' ? auth.me : null;
  const [reports, setReports] = useState<ProblemReportRecord[]>([]);
  const [resolver, setResolver] = useState(false);
  const load = () =>
    problemApi
      .open(props.resourceId)
      .then(({ body }) => setReports(body))
      .catch(() => {});
  useEffect(() => {
    void load();
  }, [props.resourceId, props.reload]);
  // Only admins and the type's maintainers resolve; only they see others' reports.
  const othersSeen = me !== null && reports.some((r) => r.member !== me.id);
  useEffect(() => {
    if (!me || !othersSeen) return;
    if (isAdmin(me)) {
      setResolver(true);
      return;
    }
    if (props.typeId === null) return;
    problemApi
      .maintainers(props.typeId)
      .then((list) => setResolver(list.some((m) => m.member === me.id)))
      .catch(() => {});
  }, [me?.id, othersSeen, props.typeId]);
  if (reports.length === 0) return null;
  return (
    <div class="open-reports">
      <h2>{t('problem.openReports')}</h2>
      <ul aria-label={t('problem.openReportsOf')}>
        {reports.map((r) => (
          <OpenReport
            key={r.id}
            r={r}
            mine={r.member === me?.id}
            resolver={resolver}
            onResolved={() => {
              void load();
              props.onResolved();
            }}
          />
        ))}
      </ul>
    </div>
  );
}

function OpenReport(props: {
  r: ProblemReportRecord;
  mine: boolean;
  resolver: boolean;
  onResolved: () => void;
}) {
  const { r } = props;
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function resolve(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await problemApi.resolve(r.id, note.trim());
      props.onResolved();
    } catch (err) {
      setError(errorWords(err));
    } finally {
      setBusy(false);
    }
  }
  const by = props.mine ? t('problem.you') : (r._embedded.member?.firstName ?? t('problem.formerMember'));
  return (
    <li aria-label={t('problem.reportN', { id: r.id })}>
      <p>
        <strong>{r.severity === 'unsafe' ? t('problem.severityUnsafe') : t('problem.severityInfo')}</strong>:{' '}
        {r.description}
      </p>
      <p class="muted">{t('problem.reportedBy', { id: r.id, by, when: dateTime(r.createdAt) })}</p>
      {props.resolver && (
        <form onSubmit={resolve} aria-label={t('problem.resolveN', { id: r.id })}>
          <label>
            {t('problem.whatDone')}
            <input
              required
              maxLength={4000}
              value={note}
              onInput={(e) => setNote((e.target as HTMLInputElement).value)}
            />
          </label>
          <button type="submit" class="secondary" disabled={busy || !note.trim()}>
            {t('problem.resolve')}
          </button>
          {error && (
            <p class="outcome error" role="alert">
              {error}
            </p>
          )}
        </form>
      )}
    </li>
  );
}
