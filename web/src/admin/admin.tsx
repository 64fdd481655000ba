import type { ComponentType } from 'preact';
import type { UserMe } from '../api';
import '../i18n/admin-catalogs';
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
import { t, tOr } from '../i18n/i18n';

/** The admin pages in the order of the navigation: path, name (`admin.nav.*`), page. */
const pages: [string, string, ComponentType][] = [
  ['/admin', 'dashboard', Dashboard],
  ['/admin/members', 'members', MembersPage],
  ['/admin/sign-ups', 'signUps', SignUpsPage],
  ['/admin/packages', 'packages', PackagesPage],
  ['/admin/trainings', 'trainings', TrainingsPage],
  ['/admin/keys', 'keys', KeysPage],
  ['/admin/resources', 'resources', ResourcesPage],
  ['/admin/activity', 'activity', ActivityPage],
  ['/admin/spaces', 'spaces', SpacesPage],
  ['/admin/bookings', 'bookings', BookingsPage],
  ['/admin/billing', 'billing', BillingPage],
  ['/admin/reports', 'reports', ReportsPage],
  ['/admin/shadow', 'shadow', ShadowPage],
  ['/admin/webhooks', 'webhooks', WebhooksPage],
  ['/admin/mail', 'mail', MailOutboxPage],
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
      <nav aria-label={t('app.admin')} class="subnav no-print">
        {pages.map(([p, name]) => (
          <a
            key={p}
            href={p}
            aria-current={path === p || (resourceLog && p === '/admin/resources') ? 'page' : undefined}
          >
            {tOr(`admin.nav.${name}`, name)}
          </a>
        ))}
        <AccountSwitch me={me} path={path} />
      </nav>
      {resourceLog ? <ResourceLogPage id={Number(resourceLog[1])} /> : <Page />}
    </>
  );
}
