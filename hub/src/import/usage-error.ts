/** A mistake in how an import was asked for (a missing option, an unreadable file): one line for the operator. */
export class UsageError extends Error {}
