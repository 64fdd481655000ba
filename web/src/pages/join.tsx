import { useEffect, useState } from 'preact/hooks';
import type { SignUpOffer } from '@makerspace/shared';
import { ApiError, call } from '../api';
import { Field } from '../field';
import './join.css';

/** The words of a failed call for the join page. */
function words(err: unknown): string {
  return err instanceof ApiError ? err.message : 'Something went wrong. Try again.';
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
  if (Number(p.recurringFee) > 0) parts.push(`${p.recurringFee} per ${p.recurringFeePeriod}`);
  if (Number(p.setupFee) > 0) parts.push(`${p.setupFee} to start`);
  return parts.length ? parts.join(', ') : 'no fee';
}

/** Asks for a new confirmation link (an expired one, or a mail that never came). */
function NewLinkForm({ initial = '' }: { initial?: string }) {
  const [email, setEmail] = useState(initial);
  const [state, setState] = useState<'idle' | 'busy' | 'sent'>('idle');
  const [error, setError] = useState<string | null>(null);
  if (state === 'sent') {
    return (
      <p role="status">
        If that address waits for its confirmation, a new link is on its way. Check your e-mail.
      </p>
    );
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
        label="Your e-mail address"
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
        Send me a new link
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
      setClosed(
        err instanceof ApiError && err.status === 404 ? 'Sign-up is not open right now.' : words(err),
      ),
    );
  }, [space]);

  if (closed) {
    return (
      <main class="narrow join">
        <h1>Join</h1>
        <p role="alert">{closed} Ask the space how to become a member.</p>
      </main>
    );
  }
  if (!offer) {
    return (
      <main class="narrow join">
        <p role="status">Loading…</p>
      </main>
    );
  }
  if (done) {
    return (
      <main class="narrow join">
        <h1>Almost there</h1>
        {done.mailed ? (
          <p role="status">
            We sent a link to <strong>{email}</strong>. Open it to confirm your e-mail address.
          </p>
        ) : (
          <p role="status">The space will confirm your e-mail address with you.</p>
        )}
        <p>
          Then {offer.space.name} reviews your sign-up. Once it is approved you can sign in at{' '}
          <a href="/sign-in">the sign-in page</a> with this address.
        </p>
        {done.mailed && (
          <details>
            <summary>No e-mail?</summary>
            <NewLinkForm initial={email} />
          </details>
        )}
      </main>
    );
  }

  const submit = (event: Event) => {
    event.preventDefault();
    if (pkg === null) {
      setError('Choose a package.');
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
      <h1>Join {offer.space.name}</h1>
      <form class="stack" onSubmit={submit}>
        <Field label="First name" required autocomplete="given-name" value={firstName} set={setFirstName} />
        <Field label="Last name" required autocomplete="family-name" value={lastName} set={setLastName} />
        <Field
          label="E-mail address"
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
          <legend>Package</legend>
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
          <h2 id="rules-title">House rules</h2>
          {/* Sanitized by the hub (rich-text subset). */}
          <div class="rich-text" dangerouslySetInnerHTML={{ __html: offer.houseRules.houseRules }} />
          <h2>Waiver</h2>
          <div class="rich-text" dangerouslySetInnerHTML={{ __html: offer.houseRules.waiver }} />
        </section>
        <label class="choice">
          <input
            type="checkbox"
            required
            checked={accepted}
            onChange={(e) => setAccepted((e.target as HTMLInputElement).checked)}
          />
          <span>I accept the house rules and the waiver (version {offer.houseRules.version})</span>
        </label>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy || !accepted}>
          Sign up
        </button>
      </form>
      <p class="muted">
        Already a member? <a href="/sign-in">Sign in</a>
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
      setMessage('This link is not complete. Open it again from your e-mail.');
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
      <h1>Confirm your e-mail address</h1>
      {state === 'busy' && <p role="status">Confirming…</p>}
      {state === 'done' && (
        <>
          <p role="status">Your e-mail address is confirmed.</p>
          <p>
            The space now reviews your sign-up. Once it is approved you can <a href="/sign-in">sign in</a>{' '}
            with this address.
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
