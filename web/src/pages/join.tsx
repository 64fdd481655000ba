import { useEffect, useState } from 'preact/hooks';
import type { SignUpOffer } from '@makerspace/shared';
import { ApiError, call } from '../api';
import { Field } from '../field';
import './join.css';
import { money, rich, slot, t, tOr } from '../i18n/i18n';

/** The words of a failed call for the join page. */
function words(err: unknown): string {
  return err instanceof ApiError ? err.message : t('common.somethingWrong');
}

const signUpApi = {
  spaces: () => call<{ id: number; name: string }[]>('GET', '/sign-ups/spaces'),
  offer: (space: number) => call<SignUpOffer>('GET', `/spaces/${space}/sign-up`),
  create: (body: Record<string, unknown>) =>
    call<{ status: 'pending'; confirmationMailed: boolean }>('POST', '/sign-ups', body),
  confirm: (token: string) =>
    call<{ emailAddress: string; status: string }>('POST', '/sign-ups/confirm', { token }),
  newLink: (emailAddress: string) => call<void>('POST', '/sign-ups/confirm-links', { emailAddress }),
};

function feeWords(p: SignUpOffer['packages'][number]): string {
  const parts: string[] = [];
  if (Number(p.recurringFee) > 0)
    parts.push(
      t('join.perPeriod', {
        amount: money(p.recurringFee, null),
        period: tOr(`join.period.${p.recurringFeePeriod}`, p.recurringFeePeriod),
      }),
    );
  if (Number(p.setupFee) > 0) parts.push(t('join.toStart', { amount: money(p.setupFee, null) }));
  return parts.length ? parts.join(', ') : t('join.noFee');
}

/** Asks for a new confirmation link (an expired one, or a mail that never came). */
function NewLinkForm({ initial = '' }: { initial?: string }) {
  const [email, setEmail] = useState(initial);
  const [state, setState] = useState<'idle' | 'busy' | 'sent'>('idle');
  const [error, setError] = useState<string | null>(null);
  if (state === 'sent') {
    return <p role="status">{t('join.newLinkSent')}</p>;
  }
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault();
        setState('busy');
        setError(null);
        signUpApi.newLink(email).then(
          () => setState('sent'),
          (err) => {
            setError(words(err));
            setState('idle');
          },
        );
      }}
    >
      <Field
        label={t('join.yourEmail')}
        type="email"
        required
        autocomplete="email"
        value={email}
        set={setEmail}
      />
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" class="primary" disabled={state === 'busy'}>
        {t('join.sendNewLink')}
      </button>
    </form>
  );
}

/**
 * `/join`: a stranger signs up alone (when the space turned sign-up on): name, e-mail, the
 * package, and the house rules and waiver in their current version to accept. Then they confirm
 * their address by the mailed link and wait for the space's approval.
 */
export function JoinPage({ space }: { space: number | null }) {
  const [offer, setOffer] = useState<SignUpOffer | null>(null);
  const [closed, setClosed] = useState<string | null>(null);
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [email, setEmail] = useState('');
  const [pkg, setPkg] = useState<number | null>(null);
  const [accepted, setAccepted] = useState(false);
  const [website, setWebsite] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<{ mailed: boolean } | null>(null);

  const load = async () => {
    const id = space ?? (await signUpApi.spaces())[0]?.id;
    const o = await signUpApi.offer(id);
    setOffer(o);
    if (o.packages.length === 1) setPkg(o.packages[0].id);
  };
  useEffect(() => {
    load().catch((err) =>
      setClosed(err instanceof ApiError && err.status === 404 ? t('join.notOpen') : words(err)),
    );
  }, [space]);

  if (closed) {
    return (
      <main class="narrow join">
        <h1>{t('join.title')}</h1>
        <p role="alert">{t('join.askSpace', { reason: closed })}</p>
      </main>
    );
  }
  if (!offer) {
    return (
      <main class="narrow join">
        <p role="status">{t('common.loading')}</p>
      </main>
    );
  }
  if (done) {
    return (
      <main class="narrow join">
        <h1>{t('join.almostThere')}</h1>
        {done.mailed ? (
          <p role="status">
            {rich(t('join.sentLink', { email: slot('email') }), { email: <strong>{email}</strong> })}
          </p>
        ) : (
          <p role="status">{t('join.spaceConfirms')}</p>
        )}
        <p>
          {rich(t('join.thenReview', { space: offer.space.name, link: slot('link') }), {
            link: <a href="/sign-in">{t('join.signInPage')}</a>,
          })}
        </p>
        {done.mailed && (
          <details>
            <summary>{t('join.noMail')}</summary>
            <NewLinkForm initial={email} />
          </details>
        )}
      </main>
    );
  }

  const submit = (event: Event) => {
    event.preventDefault();
    if (pkg === null) {
      setError(t('join.choosePackage'));
      return;
    }
    setBusy(true);
    setError(null);
    signUpApi
      .create({
        space: offer.space.id,
        firstName,
        lastName,
        emailAddress: email,
        package: pkg,
        acceptedVersion: offer.houseRules.version,
        ...(website ? { website } : {}),
      })
      .then(
        (r) => setDone({ mailed: r.confirmationMailed }),
        (err) => {
          // The rules changed while the page was open: show the new version to accept.
          if (err instanceof ApiError && err.data.field === 'acceptedVersion') {
            setAccepted(false);
            void load();
          }
          setError(words(err));
        },
      )
      .finally(() => setBusy(false));
  };

  return (
    <main class="narrow join">
      <h1>{t('join.joinSpace', { space: offer.space.name })}</h1>
      <form class="stack" onSubmit={submit}>
        <Field
          label={t('join.firstName')}
          required
          autocomplete="given-name"
          value={firstName}
          set={setFirstName}
        />
        <Field
          label={t('join.lastName')}
          required
          autocomplete="family-name"
          value={lastName}
          set={setLastName}
        />
        <Field
          label={t('join.email')}
          type="email"
          required
          autocomplete="email"
          value={email}
          set={setEmail}
        />
        {/* Not for people: a bot that fills every field fills this one too, and its sign-up is dropped. */}
        <label class="join-trap" aria-hidden="true">
          Website
          <input
            name="website"
            tabIndex={-1}
            autocomplete="off"
            value={website}
            onInput={(e) => setWebsite((e.target as HTMLInputElement).value)}
          />
        </label>
        <fieldset>
          <legend>{t('join.package')}</legend>
          {offer.packages.map((p) => (
            <label class="choice" key={p.id}>
              <input
                type="radio"
                name="package"
                checked={pkg === p.id}
                onChange={() => setPkg(p.id)}
                required
              />
              <span>
                <strong>{p.name}</strong> <span class="muted">({feeWords(p)})</span>
                {p.description && <span class="muted"> — {p.description}</span>}
              </span>
            </label>
          ))}
        </fieldset>
        <section aria-labelledby="rules-title">
          <h2 id="rules-title">{t('join.houseRules')}</h2>
          {/* Sanitized by the hub (rich-text subset). */}
          <div class="rich-text" dangerouslySetInnerHTML={{ __html: offer.houseRules.houseRules }} />
          <h2>{t('join.waiver')}</h2>
          <div class="rich-text" dangerouslySetInnerHTML={{ __html: offer.houseRules.waiver }} />
        </section>
        <label class="choice">
          <input
            type="checkbox"
            required
            checked={accepted}
            onChange={(e) => setAccepted((e.target as HTMLInputElement).checked)}
          />
          <span>{t('join.accept', { version: offer.houseRules.version })}</span>
        </label>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy || !accepted}>
          {t('join.signUp')}
        </button>
      </form>
      <p class="muted">
        {rich(t('join.alreadyMember', { link: slot('link') }), {
          link: <a href="/sign-in">{t('join.signIn')}</a>,
        })}
      </p>
    </main>
  );
}

/** `/join/confirm#token=...`: the mailed link confirms the address through the API. */
export function JoinConfirmPage({ token }: { token: string | null }) {
  const [state, setState] = useState<'busy' | 'done' | 'expired' | 'invalid'>('busy');
  const [message, setMessage] = useState('');
  useEffect(() => {
    if (!token) {
      setState('invalid');
      setMessage(t('join.linkIncomplete'));
      return;
    }
    // The token leaves the address bar at once.
    history.replaceState(null, '', '/join/confirm');
    signUpApi.confirm(token).then(
      () => setState('done'),
      (err) => {
        setState(err instanceof ApiError && err.status === 410 ? 'expired' : 'invalid');
        setMessage(words(err));
      },
    );
  }, [token]);
  return (
    <main class="narrow join">
      <h1>{t('join.confirmTitle')}</h1>
      {state === 'busy' && <p role="status">{t('join.confirming')}</p>}
      {state === 'done' && (
        <>
          <p role="status">{t('join.confirmed')}</p>
          <p>
            {rich(t('join.nowReview', { link: slot('link') }), {
              link: <a href="/sign-in">{t('join.signInLower')}</a>,
            })}
          </p>
        </>
      )}
      {(state === 'expired' || state === 'invalid') && (
        <>
          <p class="error" role="alert">
            {message}
          </p>
          <NewLinkForm />
        </>
      )}
    </main>
  );
}
