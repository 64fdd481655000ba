import type { Clock } from '../clock.js';
import type { Db } from '../db/crud.js';
import type { AccessPolicy } from '../access/policy.js';
import type { IdTranslation } from './id-map.js';
import {
  agreementByResource,
  comparedLogs,
  disagreements,
  insertShadowDecision,
  latestCompared,
  memberRow,
  resourceRow,
} from './shadow.repository.js';

type DisagreementRow = Awaited<ReturnType<typeof disagreements>>[number];

/*
 * Shadow mode (docs/MOVING.md): read the decisions another access server logged (Fabman's
 * resource logs, or another hub's), and ask our access policy what it decides for the same
 * member, resource and moment, with the data as it is here now. Each log is compared once and
 * kept, so a run goes on where the last one stopped.
 */

/** One allowed or denied decision the other server logged. */
export interface TheirDecision {
  log: number;
  resource: number;
  member: number | null;
  allowed: boolean;
  reason: string | null;
  at: string;
}

export interface ShadowSource {
  /** The other server's address: its origin (the API under /api/v1) or its API base. */
  url: string;
  /** An API token of an admin there. */
  token: string;
}

export interface ShadowRun {
  db: Db;
  policy: AccessPolicy;
  clock: Clock;
  /** Our account the decisions are compared in. */
  account: number;
  source: ShadowSource;
  /** Where the first run begins (ISO time); later runs go on from the last compared log. */
  since?: string;
  ids: IdTranslation;
  fetch?: typeof fetch;
  /** Logs per page asked of the other server. */
  pageSize?: number;
}

export interface ShadowRunResult {
  compared: number;
  agreed: number;
  disagreed: number;
}

/** The source's name in our records: its URL without a trailing slash. */
export const sourceName = (url: string) => {
  // The same name the moving-in importer gives a source (its API base), so the importer's id
  // map is found under it: an origin gains /api/v1, a trailing slash goes.
  const trimmed = url.replace(/\/+$/, '');
  try {
    const parsed = new URL(trimmed);
    return parsed.pathname === '' || parsed.pathname === '/' ? `${parsed.origin}/api/v1` : trimmed;
  } catch {
    return trimmed;
  }
};

export class ShadowSourceError extends Error {}

/** One page of the other server's allowed and denied logs from `from`, oldest first. */
async function theirPage(
  run: ShadowRun,
  from: string | null,
  offset: number,
  limit: number,
): Promise<TheirDecision[]> {
  const query = new URLSearchParams({ order: 'asc', limit: String(limit), offset: String(offset) });
  query.append('type', 'allowed');
  query.append('type', 'denied');
  if (from) query.set('from', from);
  const url = `${sourceName(run.source.url)}/resource-logs?${query}`;
  let res: Response;
  try {
    res = await (run.fetch ?? fetch)(url, {
      headers: { authorization: `Bearer ${run.source.token}`, accept: 'application/json' },
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw new ShadowSourceError(`cannot reach ${sourceName(run.source.url)}: ${(err as Error).message}`);
  }
  if (res.status === 401 || res.status === 403)
    throw new ShadowSourceError(
      `${sourceName(run.source.url)} refused the token (${res.status}): use an admin's API token there`,
    );
  if (!res.ok) throw new ShadowSourceError(`${url} answered ${res.status}`);
  const body = (await res.json()) as unknown;
  if (!Array.isArray(body)) throw new ShadowSourceError(`${url} did not answer a list of resource logs`);
  return (body as unknown[]).flatMap((log) => {
    const read = readTheirLog(log);
    return 'decision' in read ? [read.decision] : [];
  });
}

/**
 * One resource log of the other server as it comes (its API's list, or a webhook event's
 * `details.log`): an allowed or denied decision; another type of log (`ignored`), which is no
 * decision; or what is wrong with it (`error`).
 */
export function readTheirLog(
  log: unknown,
): { decision: TheirDecision } | { ignored: string } | { error: string } {
  if (typeof log !== 'object' || log === null || Array.isArray(log))
    return { error: 'the log is not an object' };
  const l = log as Record<string, unknown>;
  if (!Number.isSafeInteger(l.id) || (l.id as number) < 1)
    return { error: 'the log has no id (a positive integer)' };
  if (l.type !== 'allowed' && l.type !== 'denied')
    return typeof l.type === 'string'
      ? { ignored: `a log of type ${JSON.stringify(l.type).slice(0, 40)} is no allowed or denied decision` }
      : { error: 'the log has no type' };
  if (!Number.isSafeInteger(l.resource)) return { error: 'the log has no resource id (an integer)' };
  const at = typeof l.createdAt === 'string' ? Date.parse(l.createdAt) : Number.NaN;
  if (Number.isNaN(at)) return { error: 'the log has no createdAt (an ISO time)' };
  const member =
    typeof l.member === 'object' && l.member !== null ? (l.member as { id: unknown }).id : l.member;
  return {
    decision: {
      log: l.id as number,
      resource: l.resource as number,
      member: Number.isSafeInteger(member) ? (member as number) : null,
      allowed: l.type === 'allowed',
      reason: typeof l.reason === 'string' ? l.reason : null,
      at: new Date(at).toISOString(),
    },
  };
}

/** What comparing needs: the polling run has it, and so has a webhook receiver (shadow-webhook.ts). */
export type ShadowComparer = Pick<ShadowRun, 'db' | 'policy' | 'clock' | 'account' | 'ids'>;

/**
 * Our decision for their logged one, stored beside it: whether the two agree, and whether it
 * was stored now (false: the log was compared already, by a run or an earlier event, and the
 * first comparison stays).
 */
export async function compareDecision(
  run: ShadowComparer,
  source: string,
  theirs: TheirDecision,
): Promise<{ agrees: boolean; stored: boolean }> {
  const { db, account, ids } = run;
  const resourceId = await ids.resource(theirs.resource);
  const memberId = theirs.member === null ? null : await ids.member(theirs.member);
  const resource = resourceId === null ? undefined : await resourceRow(db, account, resourceId);
  const member = memberId === null ? null : ((await memberRow(db, account, memberId)) ?? null);
  let ours: { allowed: boolean; reason: string | null; message: string | null };
  if (!resource) {
    ours = {
      allowed: false,
      reason: null,
      message: `No resource here for their resource ${theirs.resource}`,
    };
  } else {
    const decision = await run.policy.decide({ db, resource, member, at: new Date(theirs.at) });
    ours = decision.allowed
      ? { allowed: true, reason: null, message: null }
      : { allowed: false, reason: decision.reason, message: decision.message };
  }
  const agrees = ours.allowed === theirs.allowed;
  const stored = await insertShadowDecision(db, {
    account,
    source,
    remoteLog: theirs.log,
    at: theirs.at,
    remoteResource: theirs.resource,
    remoteMember: theirs.member,
    resource: resource?.id ?? null,
    member: member?.id ?? null,
    theirs: theirs.allowed ? 'allowed' : 'denied',
    theirReason: theirs.reason,
    ours: ours.allowed ? 'allowed' : 'denied',
    ourReason: ours.reason,
    ourMessage: ours.message,
    agrees: agrees ? 1 : 0,
    checkedAt: run.clock.now().toISOString(),
  });
  return { agrees, stored };
}

/** How far before the latest compared decision a run reads again (late logs of offline bridges). */
export const LOOK_BACK_MS = 7 * 86_400_000;

/**
 * Compares every allowed and denied log of the other server not compared yet: from `since` on
 * the first run; afterwards from a week before the latest compared decision, skipping the logs
 * already compared (each is compared once).
 */
export async function runShadow(run: ShadowRun): Promise<ShadowRunResult> {
  const source = sourceName(run.source.url);
  const latest = await latestCompared(run.db, source);
  // A week back from the latest compared decision: bridges that were offline log late.
  const from = latest
    ? new Date(
        Math.max(Date.parse(latest) - LOOK_BACK_MS, run.since ? Date.parse(run.since) : 0),
      ).toISOString()
    : (run.since ?? null);
  const limit = run.pageSize ?? 500;
  const result: ShadowRunResult = { compared: 0, agreed: 0, disagreed: 0 };
  for (let offset = 0; ; offset += limit) {
    const page = await theirPage(run, from, offset, limit);
    const done = await comparedLogs(
      run.db,
      source,
      page.map((d) => d.log),
    );
    for (const theirs of page) {
      if (done.has(theirs.log)) continue;
      // A session that began before `from` and ran into it is listed too: compare decisions from `from` on.
      if (from && theirs.at < new Date(from).toISOString()) continue;
      const { agrees, stored } = await compareDecision(run, source, theirs);
      // An event a webhook receiver took meanwhile compared it first.
      if (!stored) continue;
      result.compared++;
      if (agrees) result.agreed++;
      else result.disagreed++;
    }
    if (page.length < limit) break;
  }
  return result;
}

export interface ShadowReport {
  resources: {
    source: string;
    remoteResource: number;
    resource: number | null;
    resourceName: string | null;
    compared: number;
    agreed: number;
    latest: string | null;
  }[];
  /** The decisions compared, with our resource's name and our member's full name. */
  disagreements: (Omit<DisagreementRow, 'firstName' | 'lastName'> & { memberName: string | null })[];
}

/** Agreement per resource, and the latest disagreements (newest first) with both reasons. */
export async function shadowReport(db: Db, account: number, limit = 500): Promise<ShadowReport> {
  const resources = (await agreementByResource(db, account)).map((r) => ({
    source: r.source,
    remoteResource: r.remoteResource,
    resource: r.resource,
    resourceName: r.resourceName ?? null,
    compared: Number(r.compared),
    agreed: Number(r.agreed ?? 0),
    latest: (r.latest as string | null) ?? null,
  }));
  const rows = await disagreements(db, account, limit);
  return {
    resources,
    disagreements: rows.map(({ firstName, lastName, ...r }) => ({
      ...r,
      resourceName: r.resourceName ?? null,
      memberName: firstName ? [firstName, lastName].filter(Boolean).join(' ') : null,
    })),
  };
}

/** The report as text for the terminal: agreement per resource, then each disagreement. */
export function reportText(report: ShadowReport, run?: ShadowRunResult): string {
  const lines: string[] = [];
  if (run)
    lines.push(`compared ${run.compared} new decisions: ${run.agreed} agree, ${run.disagreed} disagree`);
  lines.push('agreement per resource (theirs -> ours):');
  for (const r of report.resources) {
    const name = r.resourceName ?? `(none here for their ${r.remoteResource})`;
    const rate = r.compared ? ((100 * r.agreed) / r.compared).toFixed(1) : '-';
    lines.push(
      `  ${r.remoteResource} -> ${r.resource ?? '-'} ${name}: ${r.agreed}/${r.compared} agree (${rate}%)`,
    );
  }
  lines.push(`disagreements (latest ${report.disagreements.length}):`);
  for (const d of report.disagreements) {
    const who = d.memberName ?? (d.remoteMember === null ? 'no member' : `their member ${d.remoteMember}`);
    lines.push(
      `  ${d.at} ${who} at ${d.resourceName ?? `their resource ${d.remoteResource}`}: theirs ${d.theirs}${d.theirReason ? ` (${d.theirReason})` : ''}, ours ${d.ours}${d.ourReason ? ` (${d.ourReason}: ${d.ourMessage})` : d.ourMessage ? ` (${d.ourMessage})` : ''}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
