import type { UserMe } from '../api';
import { isAdmin } from '../session';
import './admin.css';
import { AccountSwitch } from './account-switch';
import { BillingPage } from './billing';
import { Dashboard } from './dashboard';
import { KeysPage } from './keys';
import { MembersPage } from './members';
import { WebhooksPage } from './webhooks';

/**
 * The admin console, loaded as its own chunk (main.tsx imports it dynamically), so members never
 * download it. The hub decides who may do what: a member who opens these pages gets the API's
 * refusals, the navigation only hides them.
 */
export function AdminPages({ path, me }: { path: string; me: UserMe }) {
  const here = (p: string) => (path === p ? 'page' : undefined);
  return (
    <>
      <nav aria-label="Admin" class="subnav no-print">
        <a href="/admin" aria-current={here('/admin')}>
          Dashboard
        </a>
        <a href="/admin/members" aria-current={here('/admin/members')}>
          Members
        </a>
        <a href="/admin/keys" aria-current={here('/admin/keys')}>
          Key cards
        </a>
        <a href="/admin/billing" aria-current={here('/admin/billing')}>
          Billing
        </a>
        <a href="/admin/webhooks" aria-current={here('/admin/webhooks')}>
          Webhooks
        </a>
        <AccountSwitch me={me} />
      </nav>
      {!isAdmin(me) && (
        <p role="alert" class="error admin-note">
          These pages are for admins; the hub refuses what they ask for on your behalf.
        </p>
      )}
      {path === '/admin/keys' ? (
        <KeysPage />
      ) : path === '/admin/members' ? (
        <MembersPage />
      ) : path === '/admin/billing' ? (
        <BillingPage />
      ) : path === '/admin/webhooks' ? (
        <WebhooksPage />
      ) : (
        <Dashboard />
      )}
    </>
  );
}
