import type { HubContext } from '../context.js';
import type { Mailer } from './mailer.js';
import type { SessionStore } from './sessions.js';
import type { SignInThrottles } from './throttle.js';

/** The ports plus what signing in people needs (docs/SIGN-IN.md). */
export interface SignInContext extends HubContext {
  /** Browser sessions; `ctx.sessions.onRevoked(ids => ...)` hears of every revocation. */
  sessions: SessionStore;
  /** Outgoing mail (HUB_SMTP_URL); null when none is configured. */
  mailer: Mailer | null;
  /** Counters for failed logins and sign-in link requests. */
  throttles: SignInThrottles;
  /** How long an invitation link stays valid (HUB_INVITATION_DAYS); sign-in links stay 15 minutes. */
  invitationLifetimeMs: number;
}
