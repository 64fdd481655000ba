import type { Db } from '../db/crud.js';
import { activeAdminAddresses, activeMaintainerAddresses, resourceOfReport } from './problems.repository.js';

/** Who is told of a problem report: a member id and the address to write to (null: none on file). */
export interface ProblemReportRecipient {
  memberId: number;
  emailAddress: string | null;
}

/**
 * Who should hear of a problem report (for mail notifications, which another part sends): the
 * active maintainers of its resource's type, or, when that type has none (or the resource has
 * no type), the account's active admins and owners. By member id. Sends nothing itself.
 */
export async function problemReportRecipients(
  db: Db,
  report: { resource: number },
): Promise<ProblemReportRecipient[]> {
  const resource = await resourceOfReport(db, report.resource);
  if (!resource) return [];
  if (resource.type !== null) {
    const maintainers = await activeMaintainerAddresses(db, resource.account, resource.type);
    if (maintainers.length > 0) return maintainers;
  }
  return activeAdminAddresses(db, resource.account);
}
