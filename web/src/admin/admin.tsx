import type { ComponentType } from 'preact';
import type { UserMe } from '../api';
import './admin.css';
import { AccountSwitch } from './account-switch';
import { ActivityPage } from './activity';
import { BillingPage } from './billing';
import { BookingsPage } from './bookings';
import { Dashboard } from './dashboard';
import { KeysPage } from './keys';
import { MailOutboxPage } from './mail-outbox';
import { MembersPage } from './members';
import { PackagesPage } from './packages';
import { ReportsPage } from './reports';
import { ResourceLogPage } from './resource-log';
import { ResourcesPage } from './resources';
import { ShadowPage } from './shadow';
import { SignUpsPage } from './sign-ups';
import { SpacesPage } from './spaces';
import { TrainingsPage } from './trainings';
import { WebhooksPage } from './webhooks';

/** The admin pages in the order of the navigation: path, name, page. */
const pages: [string, string, ComponentType][] = [
  ['/admin', 'Dashboard', Dashboard],
  ['/admin/members', 'Members', MembersPage],
  ['/admin/sign-ups', 'Sign-ups', SignUpsPage],
  ['/admin/packages', 'Packages', PackagesPage],
  ['/admin/trainings', 'Trainings', TrainingsPage],
  ['/admin/keys', 'Key cards', KeysPage],
  ['/admin/resources', 'Resources', ResourcesPage],
  ['/admin/activity', 'Activity', ActivityPage],
  ['/admin/spaces', 'Spaces', SpacesPage],
  ['/admin/bookings', 'Bookings', BookingsPage],
  ['/admin/billing', 'Billing', BillingPage],
  ['/admin/reports', 'Reports', ReportsPage],
  ['/admin/shadow', 'Shadow mode', ShadowPage],
  ['/admin/webhooks', 'Webhooks', WebhooksPage],
  ['/admin/mail', 'Mail', MailOutboxPage],
];

/**
 * The admin console, loaded as its own chunk (main.tsx imports it dynamically, for admins only:
 * a plain member at /admin gets a page saying it is for admins). The hub still decides who may
 * do what.
 */
export function AdminPages({ path, me }: { path: string; me: UserMe }) {
  const Page = pages.find(([p]) => p === path)?.[2] ?? Dashboard;
  const resourceLog = path.match(/^\/admin\/resources\/(\d+)\/log$/);
  return (
    <>
      <nav aria-label="Admin" class="subnav no-print">
        {pages.map(([p, name]) => (
          <a
            key={p}
            href={p}
            aria-current={path === p || (resourceLog && p === '/admin/resources') ? 'page' : undefined}
          >
            {name}
          </a>
        ))}
        <AccountSwitch me={me} path={path} />
      </nav>
      {resourceLog ? <ResourceLogPage id={Number(resourceLog[1])} /> : <Page />}
    </>
  );
}
