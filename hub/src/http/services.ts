import type { PolicyContext } from '../access/policy.js';
import type { Authenticator } from '../identity/authenticator.js';
import type { SignInContext } from '../sign-in/context.js';

/**
 * What the HTTP layer works with: the ports, the access policy, sign-in (sessions, mail,
 * throttles) and the token authenticator.
 */
export interface HubServices extends PolicyContext, SignInContext {
  auth: Authenticator;
}
