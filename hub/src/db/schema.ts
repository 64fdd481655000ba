import type { Generated } from 'kysely';

/** Columns shared by every editable record. */
export interface Stamps {
  lockVersion: Generated<number>;
  createdAt: string;
  updatedAt: string;
  updatedBy: number | null;
}

export interface AccountsTable extends Stamps {
  id: Generated<number>;
  name: string;
  locale: Generated<string>;
  trialEndDate: string | null;
  billingEmailAddress: string | null;
  billingCompany: string | null;
  inviteMembers: Generated<number>;
}

export interface SpacesTable extends Stamps {
  id: Generated<number>;
  account: number;
  name: string;
  shortName: string | null;
  timezone: Generated<string>;
  locale: Generated<string>;
  state: Generated<string>;
  emailAddress: string | null;
  website: string | null;
  phone: string | null;
  infoText: string | null;
  calendarTokenHash: string | null;
  calendarTokenEncrypted: string | null;
  bookingSlotsPerHour: Generated<number>;
  bookingWindowMinHours: Generated<number>;
  bookingWindowMaxDays: Generated<number>;
  bookingLockInHours: Generated<number>;
  bookingMaxMinutesPerMemberDay: number | null;
  bookingMaxMinutesPerMemberWeek: number | null;
  bookingOpeningHours: Generated<number>;
  bookingExclusiveMinutes: Generated<number>;
  bookingRefundable: Generated<number>;
  bookingTermsOfService: string | null;
  /** How many may be checked in at once; null: no limit (migration 0025). */
  occupancyLimit: number | null;
}

export interface MembersTable extends Stamps {
  id: Generated<number>;
  account: number;
  space: number;
  memberNumber: string | null;
  firstName: string;
  lastName: string;
  emailAddress: string | null;
  emailKey: string | null;
  state: Generated<string>;
  privileges: Generated<string>;
  superuser: Generated<number>;
  dateOfBirth: string | null;
  gender: string | null;
  company: string | null;
  phone: string | null;
  address: string | null;
  address2: string | null;
  city: string | null;
  zip: string | null;
  countryCode: string | null;
  region: string | null;
  notes: string | null;
  taxExempt: Generated<number>;
  hasBillingAddress: Generated<number>;
  billingFirstName: string | null;
  billingLastName: string | null;
  billingCompany: string | null;
  billingAddress: string | null;
  billingAddress2: string | null;
  billingCity: string | null;
  billingZip: string | null;
  billingCountryCode: string | null;
  billingRegion: string | null;
  billingInvoiceText: string | null;
  requireUpfrontPayment: Generated<number>;
  upfrontMinimumBalance: string | null;
  metadata: string | null;
  allowLogin: Generated<number>;
  language: string | null;
}

export interface ApiKeysTable extends Stamps {
  id: Generated<number>;
  account: number;
  member: number;
  label: string | null;
  tokenHash: string;
  tokenEncrypted: string;
}

export interface ResourceTypesTable extends Stamps {
  id: Generated<number>;
  account: number;
  name: string;
}

export interface ResourcesTable extends Stamps {
  id: Generated<number>;
  account: number;
  space: number;
  name: string;
  type: number | null;
  controlType: Generated<string>;
  state: Generated<string>;
  requiresTraining: Generated<number>;
  canBeBooked: Generated<number>;
  mustBeBooked: Generated<number>;
  exclusiveUsage: Generated<number>;
  visibleForMembers: Generated<number>;
  description: string | null;
  notes: string | null;
  maintenanceNotes: string | null;
  displayTitle: string | null;
  safetyMessage: string | null;
  maxOfflineUsage: number | null;
  deadManIntervalBusy: number | null;
  deadManIntervalIdle: number | null;
  idlePowerThreshold: string | null;
  pricePerTimeBusy: Generated<string>;
  pricePerTimeBusySeconds: Generated<number>;
  pricePerTimeIdle: Generated<string>;
  pricePerTimeIdleSeconds: Generated<number>;
  pricePerUsage: Generated<string>;
  pricingMinDurationSeconds: Generated<number>;
  pricePerBooking: Generated<string>;
  pricePerBookingSeconds: Generated<number>;
  metadata: string | null;
  pulseSeconds: Generated<number>;
  codeMode: Generated<string>;
  switchOnCodeEncrypted: string;
  lastUsedLog: number | null;
  /** Seconds a session may run at most; null: no limit of its own (migration 0014). */
  maxDuration: number | null;
  /** Why the resource is locked, shown to members (migration 0014). */
  lockReason: string | null;
  /** 1: taps at this door check members in and out (migration 0025). */
  entrance: Generated<number>;
  /** normal, openingHours or firstIn (migration 0025). */
  unlockMode: Generated<string>;
  /** Idle switch-off of machines with a busy input; null: none (migration 0026). */
  idleTimeoutSeconds: number | null;
  /** Warning before the idle cut; null: 60 s (migration 0026). */
  idleWarningSeconds: number | null;
  /** How long a busy machine runs past its maxDuration; null: none (migration 0026). */
  busyGraceSeconds: number | null;
}

export interface BridgesTable {
  resource: number;
  account: number;
  serialNumber: string | null;
  heartbeatInterval: Generated<number>;
  offline: Generated<number>;
  inUse: Generated<number>;
  relaySince: string | null;
  apiKeyHash: string;
  apiKeyEncrypted: string;
  createdBy: number | null;
  configVersion: Generated<number>;
  agentVersion: string | null;
  hardware: string | null;
  lastSeenAt: string | null;
  /** When two devices with this key last took the connection from each other (migration 0011). */
  duplicateDeviceAt: string | null;
  /** Their addresses, a JSON array. */
  duplicateDeviceAddresses: string | null;
  /** The inputs message its agent last sent, JSON (migration 0026). */
  inputs: string | null;
  inputsAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A switch-on sent to a bridge and not yet settled (migration 0007). */
export interface PendingSwitchOnsTable {
  commandId: string;
  resource: number;
  log: number;
  door: number;
  state: Generated<string>;
  command: string;
  createdAt: string;
}

export interface ResourceLogsTable {
  id: Generated<number>;
  account: number;
  resource: number;
  type: string;
  member: number | null;
  originalMember: number | null;
  createdAt: string;
  stoppedAt: string | null;
  stopType: string | null;
  idleDurationSeconds: number | null;
  reason: string | null;
  notes: string | null;
  metadata: string | null;
  extraChargeDescription: string | null;
  extraChargePrice: string | null;
  extraChargeTaxPercent: string | null;
  clientId: string | null;
  offline: Generated<number>;
  lockVersion: Generated<number>;
  updatedAt: string;
  updatedBy: number | null;
}

export interface AccessAttemptsTable {
  id: Generated<number>;
  resource: number;
  member: number | null;
  kind: string;
  at: string;
}

export interface RetiredSwitchOnCodesTable {
  id: Generated<number>;
  resource: number;
  /** hashToken of the upper-case code. */
  codeHash: string;
  retiredAt: string;
}

export interface Database {
  retired_switch_on_codes: RetiredSwitchOnCodesTable;
  accounts: AccountsTable;
  spaces: SpacesTable;
  members: MembersTable;
  api_keys: ApiKeysTable;
  resource_types: ResourceTypesTable;
  resources: ResourcesTable;
  bridges: BridgesTable;
  resource_logs: ResourceLogsTable;
  pending_switch_ons: PendingSwitchOnsTable;
  access_attempts: AccessAttemptsTable;
}

// Webhooks and their outbox (migration 0004).
export interface WebhooksTable extends Stamps {
  id: Generated<number>;
  account: number;
  /** The URL sealed with the hub secret (TokenBox): it may carry a secret. */
  urlEncrypted: string;
  /** The URL's host, in clear for search and ordering. */
  urlHost: string;
  label: string | null;
  state: Generated<string>;
  notes: string | null;
  categories: string;
  secretEncrypted: string;
  failingSince: string | null;
  consecutiveFailures: Generated<number>;
}

export interface WebhookEventsTable {
  id: Generated<number>;
  account: number;
  type: string;
  details: string;
  createdAt: string;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  account: number;
  webhook: number;
  event: number;
  state: Generated<string>;
  attempts: Generated<number>;
  nextAttemptAt: string | null;
  leaseUntil: string | null;
  deliveredAt: string | null;
  createdAt: string;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery: number;
  at: string;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

export interface Database {
  webhooks: WebhooksTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}

// Billing: packages, member packages and credits, charges, invoices, payments, jobs (migration 0005).
export interface PackagesTable extends Stamps {
  id: Generated<number>;
  account: number;
  name: string;
  description: string | null;
  notes: string | null;
  state: Generated<string>;
  allowsBooking: Generated<number>;
  setupFee: Generated<string>;
  recurringFee: Generated<string>;
  recurringFeePeriod: Generated<string>;
  prorate: Generated<number>;
  minimumDuration: number | null;
  minimumDurationUnit: string | null;
  endsAutomatically: Generated<number>;
  cancellationTime: number | null;
  cancellationTimeUnit: string | null;
  metadata: string | null;
}

export interface PackageCreditsTable extends Stamps {
  id: Generated<number>;
  account: number;
  package: number;
  scope: Generated<string>;
  amount: Generated<string>;
  period: Generated<string>;
  resources: Generated<string>;
}

export interface PackagePermissionsTable extends Stamps {
  id: Generated<number>;
  account: number;
  package: number;
  type: string;
  resourceType: number | null;
  resource: number | null;
  timeType: Generated<string>;
  times: Generated<string>;
  usageFeeDiscountPercent: Generated<string>;
  bookingFeeDiscountPercent: Generated<string>;
}

export interface MemberPackagesTable extends Stamps {
  id: Generated<number>;
  account: number;
  member: number;
  package: number;
  fromDate: string;
  untilDate: string | null;
  notes: string | null;
  setupCharged: Generated<number>;
  billedUntil: string | null;
}

export interface MemberCreditsTable extends Stamps {
  id: Generated<number>;
  account: number;
  member: number;
  /** Null for a credit given by hand (migration 0013). */
  memberPackage: number | null;
  packageCredit: number | null;
  scope: string;
  resources: Generated<string>;
  amount: string;
  remaining: string;
  fromDate: string;
  untilDate: string | null;
  notes: Generated<string | null>;
}

export interface ChargesTable extends Stamps {
  id: Generated<number>;
  account: number;
  member: number;
  dateTime: string;
  description: string;
  price: string;
  taxPercent: Generated<string>;
  invoice: number | null;
  booking: number | null;
  resourceLog: number | null;
  memberPackage: number | null;
  feeKey: string | null;
  calculated: Generated<number>;
}

export interface CreditUsesTable {
  id: Generated<number>;
  account: number;
  member: number;
  memberCredit: number;
  resourceLog: number | null;
  booking: number | null;
  amount: string;
  createdAt: string;
}

export interface InvoicesTable extends Stamps {
  id: Generated<number>;
  account: number;
  space: number;
  member: number;
  date: string;
  dueDate: string | null;
  number: string;
  state: Generated<string>;
  currency: Generated<string>;
  total: string;
  paid: Generated<string>;
  cancelledInvoice: number | null;
  recipientName: string | null;
  recipientCompany: string | null;
  recipientAddress: string | null;
  header: string | null;
  footer: string | null;
  text: string | null;
  notes: string | null;
}

export interface PaymentsTable extends Stamps {
  id: Generated<number>;
  account: number;
  member: number;
  date: string;
  total: string;
  state: Generated<string>;
  method: Generated<string>;
  notes: string | null;
}

export interface PaymentAllocationsTable {
  payment: number;
  invoice: number;
  amount: string;
}

export interface PaymentRequestsTable extends Stamps {
  id: Generated<number>;
  account: number;
  payment: number;
  member: number;
  total: string;
  notes: string | null;
  state: Generated<string>;
  provider: string;
  reference: string;
  instructions: string | null;
}

export interface JobsTable extends Stamps {
  id: Generated<number>;
  account: number;
  type: string;
  state: Generated<string>;
  params: Generated<string>;
  progress: Generated<number>;
  result: string | null;
  error: string | null;
  attempts: Generated<number>;
  runAfter: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface Database {
  packages: PackagesTable;
  package_credits: PackageCreditsTable;
  package_permissions: PackagePermissionsTable;
  member_packages: MemberPackagesTable;
  member_credits: MemberCreditsTable;
  charges: ChargesTable;
  credit_uses: CreditUsesTable;
  invoices: InvoicesTable;
  payments: PaymentsTable;
  payment_allocations: PaymentAllocationsTable;
  payment_requests: PaymentRequestsTable;
  jobs: JobsTable;
}

// Spaces: opening hours, holidays, billing settings, training, bookings (migration 0003).
export interface OpeningHoursTable {
  id: Generated<number>;
  space: number;
  dayOfWeek: number;
  fromTime: string;
  untilTime: string;
}

export interface HolidaysTable extends Stamps {
  id: Generated<number>;
  account: number;
  space: number;
  title: string | null;
  fromDateTime: string;
  untilDateTime: string;
  affects: Generated<string>;
}

export interface SpaceBillingSettingsTable extends Stamps {
  id: Generated<number>;
  space: number;
  account: number;
  currency: Generated<string>;
  taxPercent: Generated<string>;
  invoiceNumberPrefix: Generated<string>;
  nextInvoiceNumber: Generated<number>;
  invoiceHeader: string | null;
  invoiceFooter: string | null;
  defaultInvoiceDeadline: Generated<number>;
  defaultInvoiceDeadlineUnit: Generated<string>;
  statementName: string | null;
  stripeUser: string | null;
  stripePublicKey: string | null;
  stripeName: string | null;
  stripeLivemode: Generated<number>;
  enableSepa: Generated<number>;
  sepaCreditorId: string | null;
  sepaIban: string | null;
  sepaAccountOwnerName: string | null;
  sepaMandateText: string | null;
  /** Migration 0019. */
  sepaBic: string | null;
  /** Sealed with the hub's key (migration 0018); never answered. */
  stripeSecretKey: string | null;
  stripeWebhookSecret: string | null;
  /** What invoices print about the space (migration 0020). */
  invoiceName: string | null;
  invoiceAddress: string | null;
  invoiceTaxId: string | null;
  /** `image/png` or `image/jpeg` when the space has an invoice logo (its bytes: invoice_logos). */
  invoiceLogoType: string | null;
}

export interface TrainingCoursesTable extends Stamps {
  id: Generated<number>;
  account: number;
  title: string;
  notes: string | null;
  state: Generated<string>;
  defaultDuration: number | null;
  defaultDurationUnit: string | null;
}

export interface TrainingCourseResourcesTable {
  course: number;
  resource: number;
}

export interface MemberTrainingsTable extends Stamps {
  id: Generated<number>;
  account: number;
  member: number;
  trainingCourse: number;
  date: string;
  fromDate: string | null;
  untilDate: string | null;
  notes: string | null;
  /** Who gave the training (migration 0014). */
  trainer: string | null;
  /** The member who recorded it (migration 0022): an admin or a trainer of the course. */
  signedBy: number | null;
}

/** A trainer waiting for the trainee's card tap at a resource (migration 0022). */
export interface TrainingTapsTable {
  id: Generated<number>;
  account: number;
  resource: number;
  trainingCourse: number;
  trainer: number;
  /** waiting, recorded or cancelled (an expired wait stays `waiting` past `expiresAt`). */
  state: string;
  createdAt: string;
  expiresAt: string;
  trainee: number | null;
  memberTraining: number | null;
}

/** Members who may record trainings of a course (migration 0022). */
/** A member's stay in a space (migration 0025). */
export interface CheckInsTable extends Stamps {
  id: Generated<number>;
  account: number;
  space: number;
  member: number;
  state: string;
  checkedInAt: string;
  checkedOutAt: string | null;
  checkInMethod: string;
  checkOutMethod: string | null;
  checkInResource: number | null;
  checkOutResource: number | null;
}

/** Whether a member is shown by name while checked in (migration 0025). */
export interface PresenceSettingsTable {
  member: number;
  account: number;
  showPresence: Generated<number>;
  updatedAt: string;
}

/** An admin's "lock now": the door's unlock window is off until `lockedUntil` (migration 0025). */
export interface DoorLocksTable {
  resource: number;
  account: number;
  lockedUntil: string;
  createdAt: string;
  createdBy: number | null;
}

export interface CourseTrainersTable {
  course: number;
  member: number;
  account: number;
  createdAt: string;
  createdBy: number | null;
}

export interface BookingsTable extends Stamps {
  id: Generated<number>;
  account: number;
  resource: number;
  member: number;
  fromDateTime: string;
  untilDateTime: string;
  state: Generated<string>;
  charged: Generated<number>;
  notes: string | null;
}

export interface Database {
  opening_hours: OpeningHoursTable;
  holidays: HolidaysTable;
  space_billing_settings: SpaceBillingSettingsTable;
  training_courses: TrainingCoursesTable;
  training_course_resources: TrainingCourseResourcesTable;
  member_trainings: MemberTrainingsTable;
  course_trainers: CourseTrainersTable;
  training_taps: TrainingTapsTable;
  bookings: BookingsTable;
}

// ---- keys (migration 0006) ----

export interface MemberKeysTable extends Stamps {
  id: Generated<number>;
  account: number;
  member: number;
  type: string;
  token: string;
  state: Generated<string>;
}

export interface KeyAssignmentsTable {
  id: Generated<number>;
  account: number;
  member: number;
  resource: number | null;
  state: Generated<string>;
  expiresAt: string;
  keyType: string | null;
  keyToken: string | null;
  assignedAt: string | null;
  createdAt: string;
  createdBy: number | null;
}

export interface Database {
  member_keys: MemberKeysTable;
  key_assignments: KeyAssignmentsTable;
}

// ---- sign-in for people (migration 0007) ----

export interface MemberPasswordsTable {
  member: number;
  hash: string;
  updatedAt: string;
}

export interface SignInLinksTable {
  id: Generated<number>;
  account: number;
  member: number;
  purpose: string;
  tokenHash: string;
  next: string | null;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  createdBy: number | null;
}

export interface BrowserSessionsTable {
  id: Generated<number>;
  account: number;
  member: number;
  tokenHash: string;
  method: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  revokedAt: string | null;
  userAgent: string | null;
  ipAddress: string | null;
}

export interface MemberInvitationsTable {
  member: number;
  account: number;
  status: string;
  invitedBy: number | null;
  invitedAt: string;
  acceptedAt: string | null;
}

export interface Database {
  member_passwords: MemberPasswordsTable;
  sign_in_links: SignInLinksTable;
  browser_sessions: BrowserSessionsTable;
  member_invitations: MemberInvitationsTable;
}

export interface BridgePairingsTable {
  id: Generated<number>;
  account: number;
  resource: number;
  /** hashToken of the code; the code itself is shown once. */
  codeHash: string;
  expiresAt: string;
  redeemedAt: string | null;
  createdBy: number;
  createdAt: string;
}

export interface Database {
  bridge_pairings: BridgePairingsTable;
}

// Member sub-resources (migration 0013): scheduled changes, device, payment details.
export interface MemberChangesTable extends Stamps {
  id: Generated<number>;
  account: number;
  member: number;
  /** The day (in the member's space) the change applies on. */
  date: string;
  /** The member fields to write, as JSON. */
  fields: Generated<string>;
  /** {field: [old, new]} as JSON, once applied. */
  changes: string | null;
  appliedAt: string | null;
}

export interface MemberDevicesTable extends Stamps {
  id: Generated<number>;
  account: number;
  member: number;
  name: string | null;
  details: string | null;
  userAgent: string | null;
}

export interface MemberPaymentDetailsTable extends Stamps {
  id: Generated<number>;
  account: number;
  member: number;
  /** JSON objects as written; null: none. */
  paymentAccount: string | null;
  paymentMethod: string | null;
}

export interface Database {
  member_changes: MemberChangesTable;
  member_devices: MemberDevicesTable;
  member_device_changes: MemberDevicesTable;
  member_payment_details: MemberPaymentDetailsTable;
}

/** Values the hub keeps about itself (migration 0017): `keyCheck` (secrets.ts). */
export interface HubMetaTable {
  name: string;
  value: string;
}

export interface Database {
  hub_meta: HubMetaTable;
}

/** SEPA direct debit batches and their debits, one per invoice (migration 0019). */
export interface SepaBatchesTable extends Stamps {
  id: Generated<number>;
  account: number;
  space: number;
  collectionDate: string;
  messageId: string;
  state: Generated<string>;
  total: string;
  count: number;
  /** JSON: the creditor as written into the file. */
  creditor: string;
  /** JSON: [{invoice, invoiceNumber, member, reason, message}]. */
  skipped: Generated<string>;
  collectedDate: string | null;
}

export interface SepaDebitsTable {
  id: Generated<number>;
  account: number;
  batch: number;
  invoice: number;
  member: number;
  amount: string;
  sequenceType: string;
  endToEndId: string;
  mandateReference: string;
  mandateDate: string;
  iban: string;
  bic: string | null;
  debtorName: string;
  remittance: string;
  state: Generated<string>;
  returnReason: string | null;
  returnNotes: string | null;
  returnedDate: string | null;
  payment: number | null;
  createdAt: string;
  updatedAt: string;
}

/** A mail to a member or admin in the outbox (migration 0021, notifications/). */
export interface NotificationsTable {
  id: Generated<number>;
  account: number;
  member: number;
  kind: string;
  /** JSON: what the mail says, as it was when the notification was made. */
  params: Generated<string>;
  /** Periodic notifications: unique, so the same reminder is never queued twice. */
  dedupeKey: string | null;
  /** queued, sent or failed (given up after the last retry). */
  state: Generated<string>;
  attempts: Generated<number>;
  nextAttemptAt: string | null;
  leaseUntil: string | null;
  lastError: string | null;
  /** The subject as sent. */
  subject: string | null;
  sentAt: string | null;
  createdAt: string;
}

/** A member's choice of notification kinds (migration 0021). */
export interface NotificationSettingsTable {
  member: number;
  account: number;
  /** JSON object: kind -> boolean; a kind not named has its default. */
  kinds: Generated<string>;
  updatedAt: string;
}

// ---- invoice PDFs (migration 0020) ----

/** A space's invoice logo, one per space. */
export interface InvoiceLogosTable {
  space: number;
  account: number;
  contentType: string;
  bytes: Buffer;
  createdAt: string;
}

/** An invoice's document as first made: what it prints (JSON) and its PDFs. */
export interface InvoicePdfsTable {
  invoice: number;
  account: number;
  content: string;
  pdf: Buffer | null;
  cancelledPdf: Buffer | null;
  createdAt: string;
  updatedAt: string;
}

export interface Database {
  sepa_batches: SepaBatchesTable;
  sepa_debits: SepaDebitsTable;
  notifications: NotificationsTable;
  notification_settings: NotificationSettingsTable;
  check_ins: CheckInsTable;
  presence_settings: PresenceSettingsTable;
  door_locks: DoorLocksTable;
  shadow_decisions: ShadowDecisionsTable;
  shadow_receivers: ShadowReceiversTable;
}

// Payments through Stripe (migration 0018).
export interface StripeCustomersTable {
  id: Generated<number>;
  account: number;
  member: number;
  keyTag: string;
  customer: string;
  createdAt: string;
}

export interface StripePaymentsTable {
  id: Generated<number>;
  account: number;
  member: number;
  invoice: number | null;
  kind: string;
  attempt: Generated<number>;
  idempotencyKey: string;
  chargeSlot: string | null;
  customer: string | null;
  paymentMethod: string | null;
  amount: string;
  currency: string;
  state: string;
  checkoutSession: string | null;
  paymentIntent: string | null;
  failureCode: string | null;
  failureMessage: string | null;
  retryAfter: string | null;
  payment: number | null;
  settledAt: string | null;
  refunded: Generated<string>;
  createdAt: string;
  updatedAt: string;
}

export interface StripeEventsTable {
  id: Generated<number>;
  eventId: string;
  account: number;
  type: string;
  receivedAt: string;
}

export interface Database {
  stripe_customers: StripeCustomersTable;
  stripe_payments: StripePaymentsTable;
  stripe_events: StripeEventsTable;
  invoice_logos: InvoiceLogosTable;
  invoice_pdfs: InvoicePdfsTable;
}

// ---- sign-up (migration 0024) ----

export interface SignUpSettingsTable {
  space: number;
  account: number;
  enabled: Generated<number>;
  requireKeyCard: Generated<number>;
  requireFirstPayment: Generated<number>;
  /** JSON array of the package ids offered. */
  packages: Generated<string>;
  requireTraining: number | null;
  updatedAt: string;
  updatedBy: number | null;
}

export interface HouseRulesTable {
  id: Generated<number>;
  account: number;
  space: number;
  version: number;
  houseRules: string;
  waiver: string;
  createdAt: string;
  createdBy: number | null;
}

export interface HouseRulesAcceptancesTable {
  id: Generated<number>;
  account: number;
  space: number;
  member: number;
  version: number;
  acceptedAt: string;
  /** 'signUp' (on the join page) or 'app' (asked after a change). */
  via: string;
}

export interface SignUpsTable {
  id: Generated<number>;
  account: number;
  space: number;
  member: number;
  package: number | null;
  /** pending, approved or rejected. */
  status: Generated<string>;
  emailConfirmedAt: string | null;
  /** 'link' or 'admin'. */
  emailConfirmedBy: string | null;
  confirmTokenHash: string | null;
  confirmExpiresAt: string | null;
  ipAddress: string | null;
  createdAt: string;
  decidedAt: string | null;
  decidedBy: number | null;
  rejectReason: string | null;
}

export interface Database {
  sign_up_settings: SignUpSettingsTable;
  house_rules: HouseRulesTable;
  house_rules_acceptances: HouseRulesAcceptancesTable;
  sign_ups: SignUpsTable;
}

// ---- problem reports and maintainers (migration 0023) ----

export interface ProblemReportsTable {
  id: Generated<number>;
  account: number;
  resource: number;
  /** Who reported it; null once that member is deleted. */
  member: number | null;
  description: string;
  /** info or unsafe */
  severity: string;
  /** open or resolved */
  state: Generated<string>;
  /** 1: the resource is (or was until the report was resolved) locked because of this report. */
  lockedResource: Generated<number>;
  /** 1: resolving the report unlocked the resource. */
  unlockedResource: Generated<number>;
  resolvedAt: string | null;
  resolvedBy: number | null;
  resolutionNote: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ProblemReportPhotosTable {
  report: number;
  account: number;
  /** image/jpeg or image/png */
  contentType: string;
  bytes: number;
  /** The image, stripped of its metadata. */
  data: Buffer;
  createdAt: string;
  createdBy: number | null;
}

export interface ResourceTypeMaintainersTable {
  type: number;
  member: number;
  account: number;
  createdAt: string;
  createdBy: number | null;
}

export interface Database {
  problem_reports: ProblemReportsTable;
  problem_report_photos: ProblemReportPhotosTable;
  resource_type_maintainers: ResourceTypeMaintainersTable;
}

/** The last agent update started for a bridge and how far it got (migration 0027). */
export interface AgentUpdatesTable {
  resource: number;
  account: number;
  updateId: string;
  version: string;
  fromVersion: string | null;
  /** `requested` (sent), then the agent's steps (UpdateStep of shared/protocol.ts). */
  step: string;
  error: string | null;
  startedBy: number | null;
  startedAt: string;
  updatedAt: string;
}

export interface Database {
  agent_updates: AgentUpdatesTable;
}

// Moving in: which record of another server became which record here (migration 0028).
export interface ImportIdsTable {
  id: Generated<number>;
  account: number;
  /** The other server's API base URL, as the import was given it (no trailing slash). */
  source: string;
  /** What the record is: member, resource, package, ... (import/import-ids.repository.ts). */
  kind: string;
  oldId: string;
  newId: number;
  /** A hash of what the last run wrote from the other server's record. */
  fingerprint: string;
  createdAt: string;
}

export interface Database {
  import_ids: ImportIdsTable;
}

/** Shadow mode (migration 0029): another server's logged decision beside ours. */
export interface ShadowDecisionsTable {
  id: Generated<number>;
  account: number;
  /** The other server's base URL. */
  source: string;
  /** The other server's resource log id. */
  remoteLog: number;
  at: string;
  remoteResource: number;
  remoteMember: number | null;
  /** Ours, through the id map (null: none here). */
  resource: number | null;
  member: number | null;
  /** 'allowed' | 'denied' */
  theirs: string;
  theirReason: string | null;
  /** 'allowed' | 'denied' */
  ours: string;
  ourReason: string | null;
  ourMessage: string | null;
  agrees: number;
  checkedAt: string;
}

/** Shadow mode's webhook receivers (migration 0030): where another server posts its log events. */
export interface ShadowReceiversTable {
  id: Generated<number>;
  account: number;
  /** The other server's API base, as shadow mode names it (`sourceName`). */
  source: string;
  /** SHA-256 of the secret in the receiver's URL. */
  secretHash: string;
  createdAt: string;
  /** When the current secret was made. */
  rotatedAt: string;
  /** The latest event taken. */
  lastEventAt: string | null;
  updatedBy: number | null;
}
