/**
 * What the OpenAPI document says about each operation the hub serves, in the makerspace's words:
 * a summary, a description, the error answers particular to it, and an example request body.
 * Keyed by "METHOD /path" with the path as Fastify registers it under /api/v1 (`:param`), so it
 * holds whatever file declares the route. The error answers every operation of its shape gives
 * (401, 429, 400, 404, 409 on a stale lockVersion, 415) are derived in openapi-document.ts; a
 * route's own summary, description or response wins over this catalogue. docs/API.md says how to
 * add an entry; test/hub/openapi.test.ts fails while a served operation has none.
 */

/** Error statuses the hub answers, each with the one error body (shared/src/errors.ts). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 415 | 422 | 429 | 502 | 503 | 504;

export interface CatalogueEntry {
  summary: string;
  description: string;
  /** Only the account's admins and owners may call it: other members get 403. */
  admins?: true;
  /** Answers particular to this operation, beyond those its shape implies, and what they mean here. */
  errors?: Partial<Record<ErrorStatus, string>>;
  /** An example error body for some of those answers. */
  errorExamples?: Partial<Record<ErrorStatus, { message: string; data?: Record<string, unknown> }>>;
  /** An example request body (JSON). */
  body?: unknown;
}

const list =
  'Paged with `limit` (default 50, at most 1000) and `offset`; the answer carries `X-Total-Count` and a `Link` header with rel="next" while more follow.';
const locked = 'Send the record’s current `lockVersion`; fields left out keep their value.';

const members: Record<string, CatalogueEntry> = {
  'GET /accounts': {
    summary: 'List the accounts the caller sees',
    description: `A member sees the account they belong to; superusers see every account. \`q\` searches the name. ${list}`,
  },
  'GET /accounts/:accountId': {
    summary: 'Get an account',
    description: 'The caller’s own account (superusers: any account).',
  },
  'GET /members': {
    summary: 'List members',
    description: `Admins see every member of their account, other members only themselves. Filters: \`state\`, \`privileges\`, \`space\`, \`emailAddress\`, \`memberNumber\`, and \`keyType\` with \`keyToken\` to find the holder of a key card; \`q\` searches names, e-mail address, member number and company, and finds a key card’s holder by the card id. \`embed=\` adds \`memberPackages\` (each with its package in its own \`_embedded.package\`; \`activePackages\` fills the same list with only the packages active today), \`trainings\`, \`key\` or \`privileges\` (\`device\` is accepted and left out). ${list}`,
  },
  'POST /members': {
    summary: 'Add a member',
    description:
      'Creates a member of the caller’s account (privileges `member`; grant more with PUT /members/{memberId}/privileges). Unknown fields answer 400. The member can sign in once invited (POST /members/{memberId}/invitation).',
    admins: true,
    errors: {
      422: 'The space does not exist in this account, or another member already has this e-mail address.',
    },
    body: {
      firstName: 'Ada',
      lastName: 'Lovelace',
      emailAddress: 'ada@example.org',
      memberNumber: 'M-0042',
      space: 1,
    },
  },
  'GET /members/:memberId': {
    summary: 'Get a member',
    description:
      'Admins read any member of their account, other members only themselves. `embed=` adds `memberPackages` (each with its package in its own `_embedded.package`; `activePackages` fills the same list with only the packages active today), `trainings`, `key` or `privileges` (`device` is accepted and left out).',
  },
  'PUT /members/:memberId': {
    summary: 'Change a member',
    description: `${locked} Members may change their own record; admins any member of their account. A member set \`locked\`, or no longer allowed to sign in (\`allowLogin: false\`), is signed out everywhere at once.`,
    errors: {
      422: 'The space does not exist in this account, or another member already has this e-mail address.',
    },
    body: { lockVersion: 3, phone: '+43 1 234 5678', city: 'Vienna' },
  },
  'DELETE /members/:memberId': {
    summary: 'Delete a member',
    description: 'Deletes the member and ends their sessions. Answers 204. Only owners may delete an owner.',
    admins: true,
    errors: { 409: 'The caller tried to delete their own member record.' },
  },
  'GET /members/:memberId/privileges': {
    summary: 'Get a member’s privileges',
    description: '`member`, `admin` or `owner`.',
  },
  'PUT /members/:memberId/privileges': {
    summary: 'Set a member’s privileges',
    description:
      'Admins make members admins or plain members; only owners grant or take away `owner`. Nobody changes their own privileges (another admin or owner must), and an account keeps at least one owner. Setting the privileges a member already has changes nothing.',
    admins: true,
    errors: {
      422: 'The change would leave the account without an owner (`data.lastOwner`), or the caller tried to change their own privileges (`data.ownPrivileges`).',
    },
    body: { privileges: 'admin' },
  },
  'GET /user/me': {
    summary: 'Who am I',
    description: 'The caller as a member record, without `state` and `superuser`.',
  },
  'GET /members/:memberId/credits': {
    summary: 'List a member’s credits',
    description: `What the member’s packages granted for each period, and credits given by hand, with what is left. \`current=true\` keeps only credits of today’s period (used-up ones too). ${list}`,
  },
  'GET /members/:memberId/key': {
    summary: 'Get a member’s key card',
    description:
      'The member’s key card (type, token, state). Members read their own, admins any of their account; 404 when the member has none.',
  },
  'PUT /members/:memberId/key': {
    summary: 'Give a member a key card',
    description:
      'Sets the member’s one key card (type and token as the reader sends it, hex) or changes its state; without `type` the card keeps its type. The account’s bridges update their offline key lists at once.',
    admins: true,
    errors: { 422: 'The card belongs to another member of the account (`data.duplicateKey`).' },
    body: { type: 'em4102', token: '0A1B2C3D4E', state: 'active' },
  },
  'POST /members/:memberId/key': {
    summary: 'Give a member a key card (as PUT)',
    description:
      'The same as PUT /members/{memberId}/key (the commercial interface creates keys with POST). Without `type` the card keeps its type; a member without a card needs one (400).',
    admins: true,
    errors: { 422: 'The card belongs to another member of the account (`data.duplicateKey`).' },
    body: { type: 'em4102', token: '0A1B2C3D4E' },
  },
  'DELETE /members/:memberId/key': {
    summary: 'Take a member’s key card away',
    description:
      'The card stops opening anything at once and leaves the bridges’ offline keys. Answers 204; 404 when the member has no card.',
    admins: true,
  },
  'POST /members/:memberId/key/lost': {
    summary: 'Report a key card lost',
    description:
      'The member (or an admin) marks the card inactive: it stops opening at once. Only an admin makes it active again.',
  },
  'POST /key-assignments': {
    summary: 'Assign the next card read to a member',
    description:
      'Starts a key assignment: the next card tapped at the reader of `resource` within 15 seconds becomes the member’s key card. Without `resource`, name the reader later with PUT. Poll GET /key-assignments/{assignmentId} until `state` is `assigned` or `expired`.',
    admins: true,
    errors: { 422: 'The resource does not exist in this account.' },
    body: { member: 42, resource: 7 },
  },
  'GET /key-assignments/:assignmentId': {
    summary: 'Get a key assignment',
    description: '`pending` while it waits for a card, `assigned` with the card read, or `expired`.',
    admins: true,
  },
  'PUT /key-assignments/:assignmentId': {
    summary: 'Move a key assignment to another reader',
    description: 'Names the reader where the member will tap the card; the 15 seconds start again.',
    admins: true,
    errors: { 422: 'The resource does not exist in this account, or the assignment is finished already.' },
    body: { resource: 7 },
  },
  'DELETE /key-assignments/:assignmentId': {
    summary: 'Cancel a key assignment',
    description: 'Answers 204.',
    admins: true,
  },
  'GET /unknown-cards': {
    summary: 'List cards recently refused as unknown',
    description: 'From the denied resource logs with reason `unknownKey`, newest first, to give to a member.',
    admins: true,
  },
};

const apiKeys: Record<string, CatalogueEntry> = {
  'POST /api-keys': {
    summary: 'Create an API key',
    description:
      'A token that acts as its member. Members create keys for themselves; admins for any member of their account. Read the token with GET /api-keys/{apiKeyId}/token.',
    body: { label: 'Door display', member: 42 },
  },
  'GET /api-keys': {
    summary: 'List API keys',
    description: `Members see their own keys, admins every key of their account. \`member\` filters, \`q\` searches the label. ${list}`,
  },
  'GET /api-keys/:apiKeyId': {
    summary: 'Get an API key',
    description: 'The key without its token.',
  },
  'PUT /api-keys/:apiKeyId': {
    summary: 'Change an API key’s label',
    description: locked,
    body: { lockVersion: 1, label: 'Front desk tablet' },
  },
  'DELETE /api-keys/:apiKeyId': {
    summary: 'Revoke an API key',
    description: 'The token stops working at once. Answers 204.',
  },
  'GET /api-keys/:apiKeyId/token': {
    summary: 'Read an API key’s token',
    description:
      'Shown to the key’s member and the account’s admins, and only when this call itself is made with an API key (not a browser session).',
    errors: {
      403: 'The call was made with a browser session (`data.reason: apiKeyRequired`), or the caller is neither the key’s member nor an admin of its account.',
    },
  },
};

const resources: Record<string, CatalogueEntry> = {
  'GET /resources': {
    summary: 'List resources (doors and machines)',
    description: `Filters: \`space\`, \`type\`, \`controlType\`, \`state\`; \`q\` searches the name; \`orderBy\` and \`order\` sort. \`embed=bridge\` adds each resource’s bridge. Members see resources visible to members; the switch-on code is shown to admins only. ${list}`,
  },
  'POST /resources': {
    summary: 'Add a resource',
    description:
      'A door, machine or point of sale with its access and pricing rules. It gets a random switch-on code for its QR sticker. Add its bridge with PUT /resources/{resourceId}/bridge.',
    admins: true,
    errors: { 422: 'The space or resource type does not exist in this account.' },
    body: {
      space: 1,
      name: 'Laser cutter',
      controlType: 'machine',
      requiresTraining: true,
      canBeBooked: true,
      pricePerTimeBusy: '0.50',
      pricePerTimeBusySeconds: 60,
    },
  },
  'GET /resources/:resourceId': {
    summary: 'Get a resource',
    description: 'With `lastUsed`; `embed=bridge` adds its bridge.',
  },
  'PUT /resources/:resourceId': {
    summary: 'Change a resource',
    description: `${locked} Its bridge gets the new configuration at once. A new \`switchOnCode\` makes printed stickers out of date. Locking with a \`lockReason\` tells members why on the machine page (the access check shows it while the resource is locked).`,
    admins: true,
    errors: { 422: 'The space or resource type does not exist in this account.' },
    body: { lockVersion: 4, state: 'locked', lockReason: 'Lens being replaced until Friday' },
  },
  'DELETE /resources/:resourceId': {
    summary: 'Delete a resource',
    description:
      'Deletes the resource and its bridge; the bridge’s key stops working and its agent is disconnected. Answers 204.',
    admins: true,
  },
  'GET /resources/:resourceId/bridge': {
    summary: 'Get a resource’s bridge',
    description:
      'The bridge record (serial number, heartbeat interval, online state), or `[]` when the resource has no bridge.',
  },
  'PUT /resources/:resourceId/bridge': {
    summary: 'Add or change a resource’s bridge',
    description:
      'Creates the bridge (with a new bridge API key) when there is none, else changes it. `rotateApiKey: true` issues a new key and disconnects the agent on the old one.',
    admins: true,
    body: { serialNumber: 'PI-4B-0042', heartbeatInterval: 60 },
  },
  'DELETE /resources/:resourceId/bridge': {
    summary: 'Remove a resource’s bridge',
    description: 'The bridge key stops working and its agent is disconnected. Answers 204.',
    admins: true,
  },
  'GET /resources/:resourceId/bridge/api-key': {
    summary: 'Read a bridge’s API key',
    description:
      'Shown to superusers and to the admin who created the bridge; everyone else gets 204 with an empty body.',
  },
  'POST /resources/:resourceId/switch-on': {
    summary: 'Switch a resource on (a door opens for its pulse)',
    description:
      'The member must pass the access policy and send the resource’s switch-on code (from its QR sticker). Admins and owners may leave the code out (no body, or `{}`): the log names them as the member who switched. The hub relays the command to the bridge and waits for its reply.',
    errors: {
      400: 'A member (not an admin or owner) sent no `code`.',
      403: 'The access policy or a wrong code refused: `data.reason` says why (noPackage, openingHours, wrongCode, ...).',
      429: 'Too many wrong codes for this member and resource (`data.reason: tooManyAttempts`); wait `Retry-After` seconds.',
      502: 'The bridge answered that it could not switch.',
      503: 'The bridge of this resource is offline (`data.reason: bridgeOffline`), or online over the HTTP bridge API only, which no command reaches (`data.reason: noRemoteSwitch`).',
      504: 'The bridge did not answer in time (`data.reason: noReply`).',
    },
    errorExamples: {
      403: { message: 'The space is closed now', data: { reason: 'openingHours' } },
      429: { message: 'Too many failed attempts; try again later', data: { reason: 'tooManyAttempts' } },
      503: { message: 'The bridge of this resource is offline', data: { reason: 'bridgeOffline' } },
      504: { message: 'No reply from the bridge within 5 s', data: { reason: 'noReply' } },
    },
    body: { code: 'k3x9-QR7m' },
  },
  'POST /resources/:resourceId/bridge/switch-off': {
    summary: 'Switch a machine off and end its session',
    description: 'The session is stopped and its log closed once the bridge confirms.',
    errors: {
      403: 'Only the member using the resource, or an admin, may switch it off.',
      502: 'The bridge answered that it could not switch.',
      503: 'The bridge of this resource is offline (`bridgeOffline`) or reachable over HTTP only (`noRemoteSwitch`).',
      504: 'The bridge did not answer in time.',
    },
  },
  'GET /resources/:resourceId/access-check': {
    summary: 'What switch-on would answer now, without switching',
    description:
      'Runs the access policy for the caller and says why not, until when, and which training courses would help. Writes no log.',
  },
  'GET /resources/:resourceId/sticker': {
    summary: 'The printable QR sticker of a resource',
    description: 'An SVG, or a 300 dpi PNG with `format=png`, carrying the switch-on code.',
    admins: true,
  },
  'POST /resources/:resourceId/bridge/pairing-codes': {
    summary: 'Create a one-use pairing code for a new bridge',
    description:
      'The code is valid for 30 minutes; `makerspace-agent pair <hub URL> <code>` on the Pi redeems it.',
    admins: true,
  },
  'POST /bridge-pairings/redeem': {
    summary: 'Redeem a pairing code for the bridge API key',
    description: 'Needs no credentials: the code is the credential, good once.',
    errors: { 400: 'The code is unknown, used or expired.' },
    body: { code: 'PAIR-7F3K-92QD' },
  },
  'POST /resource-types': {
    summary: 'Add a resource type',
    description:
      'A kind of resource (laser cutters, 3D printers) that package permissions can grant as a whole.',
    admins: true,
    body: { name: '3D printer' },
  },
  'GET /resource-types': {
    summary: 'List resource types',
    description: `The account’s resource types; \`q\` searches the name. ${list}`,
  },
  'GET /resource-types/:typeId': {
    summary: 'Get a resource type',
    description: 'One resource type of the caller’s account.',
  },
  'PUT /resource-types/:typeId': {
    summary: 'Rename a resource type',
    description: locked,
    admins: true,
    body: { lockVersion: 1, name: 'Resin printer' },
  },
  'DELETE /resource-types/:typeId': {
    summary: 'Delete a resource type',
    description: 'Its resources keep existing without a type. Answers 204.',
    admins: true,
  },
  'GET /resource-logs': {
    summary: 'List resource logs',
    description: `Who used which resource when, and every denial with its reason, newest first (\`order=asc\` for oldest). Filters: \`resource\`, \`member\`, \`type\` (repeatable), \`status=active\` for sessions still running, \`from\` and \`until\` (ISO times) for the logs that overlap a period (a session begun before \`from\` that ran into it counts; \`until\` must be later than \`from\`); \`resolve=member\` replaces member ids by names. Members see their own logs. ${list}`,
  },
  'POST /resource-logs': {
    summary: 'Record a resource log',
    description: 'For usage no bridge reported: a machine without a bridge, or a correction.',
    admins: true,
    errors: { 422: 'The member does not exist in this account.' },
    body: {
      resource: 7,
      type: 'allowed',
      member: 42,
      createdAt: '2026-11-21T14:00:00Z',
      stoppedAt: '2026-11-21T15:30:00Z',
      stopType: 'normal',
      notes: 'Used without the bridge while it was repaired',
    },
  },
  'GET /resource-logs/:logId': {
    summary: 'Get a resource log',
    description: '`resolve=member` replaces the member id by the member’s name and number.',
  },
  'GET /live': {
    summary: 'Live state of doors and machines (Server-Sent Events)',
    description: 'A snapshot of every resource the caller sees, then each change.',
  },
};

const bridgeApi =
  'Authenticated with the bridge API key; every request keeps the bridge online. Bodies as JSON or form-encoded (nested fields as `currentSession[id]`); fields the hub does not use (`previousSession`, firmware details) are ignored.';
const bridge: Record<string, CatalogueEntry> = {
  'POST /bridge/heartbeat': {
    summary: 'A bridge is alive',
    description: `${bridgeApi} Answers \`{config}\`: the bridge’s configuration (with \`offlineKeys\` as \`{type, token}\` cards of the members who may use its resource) when it holds an older \`configVersion\` or none (\`null\`, 0), else \`config: null\`.`,
    body: { configVersion: 12 },
  },
  'POST /bridge/access': {
    summary: 'May this key card or member use the bridge’s resource now?',
    description: `${bridgeApi} Runs the access policy for the card (or member, by id or e-mail address) at the bridge’s resource, writes the log, and answers Fabman’s access response: \`type\` allowed (with a numeric \`sessionId\`, \`maxDuration\`, \`stopped\`, \`member\` and \`messages\` [first name, last name] for the display), denied (with \`reason\` and \`messages\`) or message; \`config\` as for the heartbeat. A \`currentSession.id\` of 0 means no session.`,
    body: {
      keys: [{ type: 'em4102', token: '0A1B2C3D4E' }],
      currentSession: { id: 0 },
      configVersion: 12,
    },
  },
  'POST /bridge/update': {
    summary: 'A bridge reports on a running session',
    description: `${bridgeApi} \`session\` (or \`currentSession\`) with its \`id\`, \`idleDurationSeconds\`, \`metadata\` (merged into the log’s) and \`charge\` so far (price rounded to cents). Answers 204; a stopped session stays as it is; 404 when the session is unknown.`,
    body: { session: { id: 4711, idleDurationSeconds: 30, metadata: { job: 'box.gcode' } } },
  },
  'POST /bridge/stop': {
    summary: 'A bridge ended a session',
    description: `${bridgeApi} With its idle time, metadata and an extra charge (a float price such as 0.0259245 is rounded to cents), billed to the session’s member once. Answers 204 (also for \`id: 0\`, no session, and for a session already stopped); 404 when the session is unknown.`,
    body: {
      stopType: 'normal',
      currentSession: {
        id: 4711,
        idleDurationSeconds: 120,
        charge: { price: 2.5, description: 'Filament' },
      },
    },
  },
};

const webhooks: Record<string, CatalogueEntry> = {
  'GET /webhooks': {
    summary: 'List webhooks',
    description: `Filters: \`state\`, \`category\`; \`orderBy\` and \`order\` sort. ${list}`,
    admins: true,
  },
  'POST /webhooks': {
    summary: 'Add a webhook',
    description:
      'Events of the chosen categories are POSTed to the URL, signed (Standard Webhooks); the secret is answered this once. Only public https URLs are accepted (unless HUB_WEBHOOK_ALLOW_INSECURE is set).',
    admins: true,
    errors: {
      422: 'The URL is not allowed (not https, or a private or loopback address; `data.unsafeUrl`).',
    },
    body: {
      url: 'https://example.org/hooks/makerspace',
      label: 'Accounting',
      categories: ['member', 'invoice'],
    },
  },
  'GET /webhooks/:webhookId': {
    summary: 'Get a webhook',
    description: 'Without its secret.',
    admins: true,
  },
  'PUT /webhooks/:webhookId': {
    summary: 'Change a webhook',
    description: `${locked} Setting \`state: active\` resumes a failing webhook and sends its queue now; \`rotateSecret: true\` answers a new secret.`,
    admins: true,
    errors: { 422: 'The URL is not allowed (`data.unsafeUrl`).' },
    body: { lockVersion: 2, state: 'paused' },
  },
  'DELETE /webhooks/:webhookId': {
    summary: 'Delete a webhook',
    description: 'Answers 204.',
    admins: true,
  },
  'GET /webhooks/:webhookId/events': {
    summary: 'List a webhook’s recent events',
    description: `Each event with every delivery attempt; \`type\` and \`state\` filter. ${list}`,
    admins: true,
  },
  'POST /webhooks/:webhookId/events': {
    summary: 'Send a test event',
    description: 'Queues a test event to the webhook’s URL and answers it with its delivery state.',
    admins: true,
    body: { message: 'Hello from the makerspace' },
  },
  'POST /webhooks/:webhookId/test': {
    summary: 'Send a test event',
    description: 'The same as POST /webhooks/{webhookId}/events.',
    admins: true,
    body: { message: 'Hello from the makerspace' },
  },
};

const holidayBody = {
  lockVersion: 1,
  title: 'Christmas',
  fromDateTime: '2026-12-24T00:00',
  untilDateTime: '2026-12-27T00:00',
};
const billingBody = { lockVersion: 2, currency: 'EUR', taxPercent: '20.00', invoiceNumberPrefix: 'MS-' };
const spaces: Record<string, CatalogueEntry> = {
  'POST /spaces': {
    summary: 'Add a space',
    description: 'A place of the makerspace with its time zone, opening hours, holidays and booking rules.',
    admins: true,
    body: { name: 'Workshop Vienna', timezone: 'Europe/Vienna', locale: 'de-AT', bookingSlotsPerHour: 2 },
  },
  'GET /spaces': {
    summary: 'List spaces',
    description: `\`q\` searches the name; \`embed\` adds \`openingHours\`, \`holidays\`, \`billingSettings\`. ${list}`,
  },
  'GET /spaces/:spaceId': {
    summary: 'Get a space',
    description: '`embed` adds `openingHours`, `holidays`, `billingSettings`.',
  },
  'PUT /spaces/:spaceId': {
    summary: 'Change a space',
    description: locked,
    admins: true,
    body: { lockVersion: 5, bookingMaxMinutesPerMemberDay: 240 },
  },
  'DELETE /spaces/:spaceId': {
    summary: 'Delete a space',
    description: 'Only an empty space: move or delete its resources and members first. Answers 204.',
    admins: true,
    errors: { 409: 'The space still has resources or members (`data.resources`, `data.members`).' },
  },
  'GET /setup-progress': {
    summary: 'What a new makerspace has set up so far (admins): the first-run checklist',
    description:
      'Whether HUB_PUBLIC_URL and mail are set, each active space’s time zone and number of opening-hour ranges, and how many active packages, active resources, bridges and invited members the account has.',
    admins: true,
  },
  'GET /spaces/:spaceId/opening-hours': {
    summary: 'Get a space’s opening hours',
    description: 'A list of `{dayOfWeek, fromTime, untilTime}` in the space’s time zone (1 = Monday).',
  },
  'PUT /spaces/:spaceId/opening-hours': {
    summary: 'Replace a space’s opening hours',
    description:
      'The whole week at once, in the space’s time zone. An empty list means no opening hours: the space is open at all times.',
    admins: true,
    errors: { 422: 'Times overlap or end before they start (`data.invalidOpeningHours`).' },
    body: [
      { dayOfWeek: 2, fromTime: '09:00', untilTime: '18:00' },
      { dayOfWeek: 6, fromTime: '10:00', untilTime: '16:00' },
    ],
  },
  'POST /spaces/:spaceId/holidays': {
    summary: 'Add a holiday',
    description:
      'The space is closed from `fromDateTime` until `untilDateTime` (wall-clock times of the space).',
    admins: true,
    errors: { 422: '`untilDateTime` is not after `fromDateTime`.' },
    body: { title: 'Christmas', fromDateTime: '2026-12-24T00:00', untilDateTime: '2026-12-27T00:00' },
  },
  'GET /spaces/:spaceId/holidays': {
    summary: 'List a space’s holidays',
    description: `Upcoming holidays (\`past=true\` also those that ended), by start. ${list}`,
  },
  'GET /spaces/:spaceId/holidays/:holidayId': {
    summary: 'Get a holiday',
    description: 'One holiday of the space.',
  },
  'PUT /spaces/:spaceId/holidays/:holidayId': {
    summary: 'Change a holiday',
    description: locked,
    admins: true,
    errors: { 422: '`untilDateTime` is not after `fromDateTime`.' },
    body: holidayBody,
  },
  'DELETE /spaces/:spaceId/holidays/:holidayId': {
    summary: 'Delete a holiday',
    description: 'Answers 204.',
    admins: true,
  },
  'PUT /spaces/:spaceId/calendar-token': {
    summary: 'Create a new calendar URL',
    description:
      'Answers the secret URL of the space’s iCalendar feed of bookings and holidays; an earlier URL stops working.',
    admins: true,
  },
  'DELETE /spaces/:spaceId/calendar-token': {
    summary: 'Turn the calendar URL off',
    description: 'The feed’s URL stops working. Answers 204.',
    admins: true,
  },
  'GET /calendar/:file': {
    summary: 'The calendar feed of a space (iCalendar)',
    description:
      'Needs no credentials: the secret in the URL (from PUT /spaces/{spaceId}/calendar-token) is the credential.',
  },
  'GET /spaces/:spaceId/billing-settings': {
    summary: 'Get a space’s billing settings',
    description:
      'Currency, tax, invoice numbering and texts, payment providers. Admins only (403 for plain members, who read what their invoices print on the invoice); `GET /spaces?embed=billingSettings` leaves them out for plain members.',
  },
  'PUT /spaces/:spaceId/billing-settings': {
    summary: 'Change a space’s billing settings',
    description: locked,
    admins: true,
    body: billingBody,
  },
  'PUT /space-billing-settings/:billingSettingsId': {
    summary: 'Change billing settings by their id',
    description: `The same as PUT /spaces/{spaceId}/billing-settings. ${locked}`,
    admins: true,
    body: billingBody,
  },
  'DELETE /spaces/:spaceId/billing-settings/stripe': {
    summary: 'Disconnect Stripe from a space',
    description: 'Clears the Stripe fields of the billing settings. Answers 204.',
    admins: true,
  },
  'POST /bookings': {
    summary: 'Book a resource',
    description:
      'Members book for themselves, admins for any member. The booking must fit the space’s slots, booking window, opening hours, holidays and the per-member limits.',
    errors: {
      403: 'A member tried to book for another member.',
      409: 'The resource is already booked at this time (`data.overlappingBooking`).',
      422: 'The time is outside the rules: slots, booking window, opening hours, a holiday, the member’s limit, or the resource cannot be booked.',
    },
    errorExamples: {
      409: { message: 'The resource is already booked at this time', data: { overlappingBooking: 311 } },
      422: { message: 'Bookings must lie within the opening hours', data: { outsideOpeningHours: true } },
    },
    body: {
      resource: 7,
      fromDateTime: '2026-11-28T10:00:00Z',
      untilDateTime: '2026-11-28T12:00:00Z',
      notes: 'Acrylic signs',
    },
  },
  'GET /bookings': {
    summary: 'List bookings',
    description: `Filters: \`resource\`, \`member\`, \`space\`, \`state\`, and a time range (\`fromDateTime\`/\`untilDateTime\`). Members see their own bookings. ${list}`,
  },
  'GET /bookings/:bookingId': {
    summary: 'Get a booking',
    description: 'Members read their own bookings; admins any of their account.',
  },
  'PUT /bookings/:bookingId': {
    summary: 'Change or cancel a booking',
    description: `${locked} Members may only cancel their own future bookings (\`state: cancelled\`), not within the space’s lock-in hours; admins change times within the rules.`,
    errors: {
      403: 'A member tried something other than cancelling their own booking.',
      409: 'The new time clashes with another booking.',
      422: 'The booking has started, the lock-in time has begun, or the new time is outside the rules.',
    },
    body: { lockVersion: 1, state: 'cancelled' },
  },
};

const training: Record<string, CatalogueEntry> = {
  'POST /training-courses': {
    summary: 'Add a training course',
    description:
      'A course that allows the resources it lists to members who took it (for resources that require training).',
    admins: true,
    errors: { 422: 'A listed resource does not exist in this account.' },
    body: { title: 'Laser cutter safety', resources: [7], defaultDuration: 1, defaultDurationUnit: 'year' },
  },
  'GET /training-courses': {
    summary: 'List training courses',
    description: `Filters: \`state\`, \`resource\` (courses that allow it); \`q\` searches the title. ${list}`,
  },
  'GET /training-courses/:courseId': {
    summary: 'Get a training course',
    description: 'With the resources it allows.',
  },
  'PUT /training-courses/:courseId': {
    summary: 'Change a training course',
    description: `${locked} Its state and resources decide at once who counts as trained.`,
    admins: true,
    errors: { 422: 'A listed resource does not exist in this account.' },
    body: { lockVersion: 2, resources: [7, 9] },
  },
  'DELETE /training-courses/:courseId': {
    summary: 'Delete a training course',
    description: 'Only a course no member has taken; set it inactive otherwise. Answers 204.',
    admins: true,
    errors: { 409: 'Members’ trainings refer to the course (`data.memberTrainings`).' },
  },
  'GET /members/:memberId/trainings': {
    summary: 'List a member’s trainings',
    description: `Newest first. Members see their own. ${list}`,
  },
  'POST /members/:memberId/trainings': {
    summary: 'Record a training a member took',
    description:
      'Valid from `fromDate` (default: `date`) until `untilDate` (default: the course’s duration).',
    admins: true,
    errors: { 422: 'The course does not exist, or `untilDate` is before `fromDate`.' },
    body: { trainingCourse: 3, date: '2026-11-20', notes: 'Passed the practical part' },
  },
  'GET /members/:memberId/trainings/:trainingId': {
    summary: 'Get a member’s training',
    description: 'One training of the member.',
  },
  'DELETE /members/:memberId/trainings/:trainingId': {
    summary: 'Delete a member’s training',
    description: 'The member no longer counts as trained by it. Answers 204.',
    admins: true,
  },
};

const permissionBody = {
  type: 'resourceType',
  resourceType: 2,
  timeType: 'custom',
  times: [{ dayOfWeek: 1, fromTime: '08:00', untilTime: '20:00' }],
  usageFeeDiscountPercent: '50',
};
const billing: Record<string, CatalogueEntry> = {
  'POST /packages': {
    summary: 'Add a package',
    description:
      'What members get (permissions, credits) for what they pay (setup and recurring fees). Only owners may set fees.',
    admins: true,
    body: {
      name: 'Regular membership',
      recurringFee: '45.00',
      recurringFeePeriod: 'month',
      allowsBooking: true,
    },
  },
  'GET /packages': {
    summary: 'List packages',
    description: `\`state\` filters; \`q\` searches the name. \`embed=memberCount\` adds \`_embedded.memberCount\`: how many members hold the package today (member packages started and not ended, in the caller’s space’s time zone); for admins and owners only, other members’ embed is left out. ${list}`,
  },
  'GET /packages/:packageId': {
    summary: 'Get a package',
    description: 'One package of the caller’s account.',
  },
  'PUT /packages/:packageId': {
    summary: 'Change a package',
    description: `${locked} Only owners may change fees. Its time rules and state change who may use what at once.`,
    admins: true,
    body: { lockVersion: 3, description: 'Access to all machines on weekdays' },
  },
  'DELETE /packages/:packageId': {
    summary: 'Delete a package',
    description:
      'Only a package no member holds (archive it otherwise); only owners delete one with fees. Answers 204.',
    admins: true,
    errors: { 422: 'Members hold this package.' },
  },
  'POST /packages/:packageId/credits': {
    summary: 'Add a credit to a package',
    description:
      'Takes no body: creates a default credit (global, 0.00 a month, any resource) to edit with PUT.',
    admins: true,
  },
  'GET /packages/:packageId/credits': {
    summary: 'List a package’s credits',
    description: list,
  },
  'GET /packages/:packageId/credits/:creditId': {
    summary: 'Get a package credit',
    description: 'The amount members of the package get each period, and for what.',
  },
  'PUT /packages/:packageId/credits/:creditId': {
    summary: 'Change a package credit',
    description: `${locked} Only owners may change the amount.`,
    admins: true,
    body: {
      lockVersion: 1,
      scope: 'usage',
      amount: '20.00',
      period: 'month',
      resources: [{ type: 'resource', resource: 7 }],
    },
  },
  'DELETE /packages/:packageId/credits/:creditId': {
    summary: 'Delete a package credit',
    description: 'Members’ credits granted by it go with it. Answers 204.',
    admins: true,
  },
  'POST /packages/:packageId/permissions': {
    summary: 'Add a permission to a package',
    description:
      'Which resources the package allows (everything, a resource type, one resource) and when. Only owners may set discounts.',
    admins: true,
    errors: {
      422: 'The resource or resource type is missing or unknown, or a custom time table has no times.',
    },
    body: permissionBody,
  },
  'GET /packages/:packageId/permissions': {
    summary: 'List a package’s permissions',
    description: list,
  },
  'GET /packages/:packageId/permissions/:permissionId': {
    summary: 'Get a package permission',
    description: 'One permission of the package.',
  },
  'PUT /packages/:packageId/permissions/:permissionId': {
    summary: 'Change a package permission',
    description: `${locked} Only owners may change discounts.`,
    admins: true,
    errors: {
      422: 'The resource or resource type is missing or unknown, or a custom time table has no times.',
    },
    body: { lockVersion: 1, timeType: 'openingHours' },
  },
  'DELETE /packages/:packageId/permissions/:permissionId': {
    summary: 'Delete a package permission',
    description: 'Answers 204.',
    admins: true,
  },
  'GET /members/:memberId/packages': {
    summary: 'List the packages a member holds',
    description: `\`embed=package\` adds the package. Members see their own. ${list}`,
  },
  'POST /members/:memberId/packages': {
    summary: 'Give a member a package',
    description:
      'From `fromDate` (default today) until `untilDate`. The setup fee, the first period’s fee and the first credits are charged at once.',
    admins: true,
    errors: { 422: 'The package does not exist or is archived, or `untilDate` is before `fromDate`.' },
    body: { package: 2, fromDate: '2026-12-01', notes: 'Student rate' },
  },
  'POST /members/:memberId/packages/preview': {
    summary: 'Preview giving a member a package: its charges and credits',
    description:
      'Takes the body of `POST /members/{memberId}/packages` and answers what that call would charge and grant (the setup fee, the first period’s fee, pro rata when the package prorates, and the first credits), computed by billing itself in a transaction that is then rolled back: nothing is written. A package starting later than today shows what its billing will charge on `fromDate`.',
    admins: true,
    errors: { 422: 'The package does not exist or is archived, or `untilDate` is before `fromDate`.' },
    body: { package: 2, fromDate: '2026-12-10' },
  },
  'GET /members/:memberId/packages/:memberPackageId': {
    summary: 'Get a package a member holds',
    description: '`embed=package` adds the package.',
  },
  'PUT /members/:memberId/packages/:memberPackageId': {
    summary: 'Change a member’s package',
    description: `${locked} Set \`untilDate\` to end it.`,
    admins: true,
    errors: { 422: '`untilDate` is before `fromDate`.' },
    body: { lockVersion: 1, untilDate: '2027-06-30' },
  },
  'DELETE /members/:memberId/packages/:memberPackageId': {
    summary: 'Take a package away from a member',
    description: 'The member’s credits from it go with it. Answers 204.',
    admins: true,
  },
  'POST /charges': {
    summary: 'Charge a member',
    description: 'A manual charge; it goes on the member’s next invoice.',
    admins: true,
    errors: {
      409: 'The booking or resource log is already charged.',
      422: 'The member, booking, resource log or member package does not exist for this member.',
    },
    body: { member: 42, description: 'Plywood 4 mm, 2 sheets', price: '12.80', taxPercent: '20' },
  },
  'GET /charges': {
    summary: 'List charges',
    description: `Usage, bookings, package fees and manual charges. Filters: \`member\`, \`invoice\`, \`uninvoiced\`, \`resourceLog\`, \`booking\`. Members see their own. ${list}`,
  },
  'GET /charges/:chargeId': {
    summary: 'Get a charge',
    description: 'Members read their own charges.',
  },
  'POST /invoices': {
    summary: 'Invoice a member',
    description:
      'Puts all the member’s uninvoiced charges on a new invoice with the next number of the space.',
    admins: true,
    errors: {
      409: 'Charges changed while the invoice was made; try again.',
      422: 'The member does not exist, or has no uninvoiced charges (`data.noCharges`).',
    },
    body: { member: 42, dueDate: '2026-12-15', text: 'Thank you for making things with us.' },
  },
  'GET /invoices': {
    summary: 'List invoices',
    description: `Filters: \`member\`, \`space\`, \`state\`. Members see their own. ${list}`,
  },
  'GET /invoices/:invoiceId': {
    summary: 'Get an invoice',
    description:
      'With its payments. Members read their own invoices. `embed=details` adds `_embedded.details`, the lines and tax totals as GET /invoices/{invoiceId}/details gives them.',
  },
  'PUT /invoices/:invoiceId': {
    summary: 'Change an invoice’s texts and due date',
    description: `${locked} Amounts and charges cannot be changed: cancel the invoice instead.`,
    admins: true,
    body: { lockVersion: 1, dueDate: '2026-12-31', notes: 'Paying in two parts' },
  },
  'POST /invoices/:invoiceId/cancel': {
    summary: 'Cancel an invoice',
    description:
      'The invoice keeps its number and reads `cancelled`; its charges go on the next invoice and its payments are released to the member’s other invoices.',
    admins: true,
    errors: { 409: 'The invoice is already cancelled (`data.alreadyCancelled`).' },
    body: { lockVersion: 2 },
  },
  'GET /invoices/:invoiceId/details': {
    summary: 'Get an invoice’s lines and tax totals',
    description: 'Each charge with its net price, and the totals by tax rate.',
  },
  'POST /payments': {
    summary: 'Record a payment',
    description:
      'Money received from a member (`method`: cash, transfer, card, other; default manual), settling the listed invoices, or else their oldest open ones. A pending payment settles invoices when it is completed.',
    admins: true,
    errors: {
      422: 'The member does not exist, an invoice is not theirs or is cancelled, or a pending payment lists invoices.',
    },
    body: { member: 42, date: '2026-11-23', total: '45.00', method: 'cash', invoices: [118] },
  },
  'GET /payments': {
    summary: 'List payments',
    description: `Filters: \`member\`, \`state\`. Members see their own. ${list}`,
  },
  'GET /payments/:paymentId': {
    summary: 'Get a payment',
    description: 'With the invoices it settles.',
  },
  'PUT /payments/:paymentId': {
    summary: 'Change a payment',
    description: `${locked} Completing a pending payment settles its invoices.`,
    admins: true,
    errors: { 422: 'An invoice is not the member’s or is cancelled, or a pending payment lists invoices.' },
    body: { lockVersion: 1, state: 'completed', invoices: [118] },
  },
  'DELETE /payments/:paymentId': {
    summary: 'Delete a payment',
    description: 'The invoices it settled are open again. Answers 204.',
    admins: true,
  },
  'POST /payments/:paymentId/request-payment': {
    summary: 'Ask a member to pay',
    description: 'Creates a payment request for a pending payment with a reference and payment instructions.',
    admins: true,
    errors: { 409: 'The payment is already completed (`data.alreadyPaid`).' },
    body: { notes: 'Please pay by the end of the month' },
  },
  'GET /jobs': {
    summary: 'List jobs',
    description: `The hub’s background work (invoice runs, package billing); \`type\` and \`state\` filter. ${list}`,
  },
  'POST /jobs': {
    summary: 'Start a job now',
    description:
      '`invoiceRun` invoices every member with uninvoiced charges (or only `member`); `packageBilling` charges package fees and renews credits (it also runs every hour). Answers 202 with the queued job.',
    admins: true,
    errors: { 422: '`member` was given for a job other than `invoiceRun`, or does not exist.' },
    body: { type: 'invoiceRun', member: 42 },
  },
  'GET /jobs/:jobId': {
    summary: 'Get a job',
    description: 'Its state and result.',
  },
  // Charges changed and deleted before they are invoiced; the account's own fields.
  'PUT /charges/:chargeId': {
    summary: 'Change a charge',
    description: `${locked} Only while the charge is on no invoice; sends \`charge_updated\`.`,
    admins: true,
    errors: { 409: 'The charge is on an invoice (`data.invoiced`: its id): cancel the invoice first.' },
    body: { lockVersion: 1, description: 'Plywood 4 mm, 3 sheets', price: '19.20' },
  },
  'DELETE /charges/:chargeId': {
    summary: 'Delete a charge',
    description: 'Only while the charge is on no invoice; sends `charge_deleted`. Answers 204.',
    admins: true,
    errors: {
      409: 'The charge is on an invoice (`data.invoiced`), or is a package fee (`data.packageFee`: set its price to 0.00 to waive it).',
    },
  },
  'PUT /accounts/:accountId': {
    summary: 'Change the account',
    description: `${locked} Owners and admins change its name, locale, billing contact and \`inviteMembers\`; \`trialEndDate\` and the stamps are read-only and ignored.`,
    admins: true,
    body: { lockVersion: 0, name: 'Makerspace Linz', billingEmailAddress: 'board@example.org' },
  },
  'GET /accounts/:accountId/payment-info': {
    summary: 'How the account pays',
    description:
      '`{id, paymentMethod, lockVersion}`. A self-hosted hub bills no account, so `paymentMethod` is null. Owners and admins.',
    admins: true,
  },
};

const signIn: Record<string, CatalogueEntry> = {
  'POST /user/login': {
    summary: 'Sign in with e-mail address and password',
    description: 'Sets the session cookie and answers the CSRF token for later changes.',
    errors: {
      401: 'Wrong e-mail address or password.',
      403: 'The request came from another site’s page (its `Origin`).',
      429: 'Too many attempts for this address or source; wait `Retry-After` seconds.',
    },
    body: { emailAddress: 'ada@example.org', password: 'correct horse battery staple' },
  },
  'POST /user/accounts': {
    summary: "The accounts of the caller's e-mail address that this password opens",
    description:
      "Lists the caller's member records in other accounts (same e-mail address) whose password is the one given; switching is then `POST /user/login` with `account`.",
    errors: {
      400: 'Wrong password (counts toward the failed-login throttle).',
      429: 'Too many wrong passwords for this address or source; wait `Retry-After` seconds.',
    },
    body: { password: 'correct horse battery staple' },
  },
  'POST /user/logout': {
    summary: 'Sign out',
    description: 'Ends the current browser session and clears the cookie.',
  },
  'POST /user/sign-in-links': {
    summary: 'Mail a sign-in (or password reset) link',
    description: 'Answers 202 whether or not the address is known.',
    errors: { 429: 'Too many links asked for this address or source; wait `Retry-After` seconds.' },
    body: { emailAddress: 'ada@example.org', purpose: 'signIn' },
  },
  'POST /user/sign-in-links/redeem': {
    summary: 'Redeem a mailed link',
    description: 'Signs in and sets the session cookie.',
    errors: {
      400: 'The link is unknown.',
      403: 'The request came from another site’s page (its `Origin`).',
      410: 'The link has expired or was used already.',
    },
    body: { token: 'Zt4rW9xq2mBf7LkP0aVn' },
  },
  'PUT /user/password': {
    summary: 'Set or change the caller’s password',
    description: 'Other sessions of the member end.',
    errors: {
      400: 'The password is too short, too common or the e-mail address, or `currentPassword` is missing or wrong.',
      429: 'Too many wrong current passwords; wait `Retry-After` seconds.',
    },
    body: { password: 'a long new passphrase', currentPassword: 'correct horse battery staple' },
  },
  'GET /user/sessions': {
    summary: 'List the caller’s browser sessions',
    description: 'Where the member is signed in.',
  },
  'DELETE /user/sessions': {
    summary: 'Sign out everywhere',
    description: 'Ends every session of the caller. Answers 204.',
  },
  'GET /user/sessions/current': {
    summary: 'The browser session of this call',
    description: 'With its CSRF token, for a page that was reloaded.',
  },
  'DELETE /user/sessions/:sessionId': {
    summary: 'End one of the caller’s sessions',
    description: 'Answers 204.',
  },
  'POST /members/:memberId/invitation': {
    summary: 'Invite a member to set up their sign-in',
    description:
      'Mails a link valid for 15 minutes; without SMTP the link is answered to the admin instead (`emailSent: false`).',
    admins: true,
    errors: {
      403: 'Without SMTP, only owners may receive a link that signs in as an owner.',
      422: 'The member has no e-mail address or may not sign in.',
      503: 'The mail could not be sent.',
    },
  },
  'GET /members/:memberId/invitation': {
    summary: 'A member’s invitation status',
    description: '`notInvited`, `invited` (when, by whom) or `accepted`.',
  },
  'POST /members/:memberId/sign-in-link': {
    summary: 'Mail a member a sign-in link',
    description: 'Without SMTP the link is answered to the admin instead.',
    admins: true,
    errors: {
      403: 'Without SMTP, only owners may receive a link that signs in as an owner.',
      422: 'The member has no e-mail address or may not sign in.',
      503: 'The mail could not be sent.',
    },
    body: { next: '/r/7' },
  },
};

const operations: Record<string, CatalogueEntry> = {
  'GET /health': {
    summary: 'Liveness: the hub process answers',
    description: 'Needs no credentials. For load balancers and systemd.',
  },
  'GET /ready': {
    summary: 'Readiness: the database and the MQTT broker work',
    description: 'Needs no credentials. Answers 503 with the failing check otherwise.',
  },
  'GET /metrics': {
    summary: 'Prometheus metrics',
    description: 'In Prometheus’ text format, with `Authorization: Bearer <HUB_METRICS_TOKEN>`.',
  },
};

/** The member sub-resources of the commercial interface (docs/DECISIONS.md, "Member sub-resources"). */
const memberSubresources: Record<string, CatalogueEntry> = {
  'POST /members/:memberId/credits': {
    summary: 'Give a member a credit',
    description:
      'A credit given by hand (no package behind it): `amount` remains in full, for `scope` (default global) from `fromDate` (default today) until `untilDate` (exclusive; null: never). Emits memberCredit_created. Answers 201.',
    admins: true,
    errors: { 422: '`untilDate` is not after `fromDate`.' },
    body: {
      amount: '20.00',
      scope: 'usage',
      fromDate: '2026-12-01',
      untilDate: '2027-01-01',
      notes: 'Helped at the open day',
    },
  },
  'PUT /members/:memberId/credits/:creditId': {
    summary: 'Change a member’s credit',
    description: `A new \`amount\` moves \`remaining\` by the difference (what was spent stays spent; never below zero). Emits memberCredit_updated. ${locked}`,
    admins: true,
    errors: { 422: '`untilDate` is not after `fromDate`.' },
    body: { amount: '25.00', notes: 'Topped up', lockVersion: 1 },
  },
  'DELETE /members/:memberId/credits/:creditId': {
    summary: 'Delete a member’s credit',
    description: 'Its uses go with it; emits memberCredit_deleted. Answers 204.',
    admins: true,
  },
  'GET /members/:memberId/credits/:creditId/uses': {
    summary: 'List the uses of a member’s credit',
    description: `What consumed the credit: each use names the session (\`resourceLog\`) or \`booking\` it paid and its \`charge\`, newest first. ${list}`,
  },
  'GET /members/:memberId/balance-items': {
    summary: 'A member’s balance items',
    description:
      'The sums of the member’s invoices (not cancelled), completed payments, uninvoiced charges (`sumCharges`) and uninvoiced booking charges (`sumUnpaidBookings`), the prepaid `balance`, and the open `items` behind them (uninvoiced charges, unpaid invoices, payments), newest first; an item’s `amount` is what it adds to the balance.',
  },
  'POST /members/:memberId/changes': {
    summary: 'Schedule a change of a member',
    description:
      'Member fields (those of PUT /members/{memberId}, except `space`) to write on `date` (in the member’s space). The hub applies it on that date as a PUT would (member_updated) and marks it `applied`. Answers 201.',
    admins: true,
    body: { date: '2027-01-01', state: 'locked', notes: 'Membership ends with the year' },
  },
  'PUT /members/:memberId/changes/:changeId': {
    summary: 'Change a scheduled change',
    description: `Its \`date\`, and the member fields sent replace the change’s. An applied change answers 409. ${locked}`,
    admins: true,
    errors: { 409: 'The change was applied already (`data.applied`), or the lockVersion is stale.' },
    body: { date: '2027-02-01', lockVersion: 1 },
  },
  'GET /members/:memberId/device': {
    summary: 'Get a member’s device',
    description:
      'The device the member uses the app on; while none is known, an object whose fields are null but `member` (as Fabman answers).',
  },
  'PUT /members/:memberId/device': {
    summary: 'Set a member’s device',
    description:
      'The member (or an admin) sets it; fields left out keep their value. Each write adds a device change.',
    body: { name: 'Ada’s phone', details: 'Android 15', userAgent: 'MakerspaceApp/2.1' },
  },
  'POST /members/:memberId/device/changes': {
    summary: 'Add a device change',
    description: 'An entry in the history of the member’s device. Answers 201.',
    admins: true,
    body: { name: 'Old phone', userAgent: 'MakerspaceApp/1.9' },
  },
  'PUT /members/:memberId/device/changes/:changeId': {
    summary: 'Change a device change',
    description: locked,
    admins: true,
    body: { name: 'Ada’s old phone', lockVersion: 1 },
  },
  'GET /members/:memberId/payment-account': {
    summary: 'Get a member’s payment account',
    description:
      'Who pays and at which provider; while none was written, an object whose fields are null but `member` (as Fabman answers).',
  },
  'PUT /members/:memberId/payment-account': {
    summary: 'Set a member’s payment account',
    description: 'Fields left out keep their value.',
    admins: true,
    body: { provider: 'sepa', customerReference: 'C-0042', emailAddress: 'ada@example.org' },
  },
  'GET /members/:memberId/payment-method': {
    summary: 'Get a member’s payment method',
    description:
      'How the member pays (SEPA direct debit, card, ...); while none was written, an object whose fields are null but `member` (as Fabman answers).',
  },
  'PUT /members/:memberId/payment-method': {
    summary: 'Set a member’s payment method',
    description:
      'The member (or an admin) sets it; it replaces the one before whole. IBANs are stored without spaces, upper case.',
    body: {
      type: 'sepa',
      iban: 'AT61 1904 3002 3457 3201',
      accountOwnerName: 'Ada Lovelace',
      mandateDate: '2026-11-20',
    },
  },
  'DELETE /members/:memberId/payment-method': {
    summary: 'Remove a member’s payment method',
    description: 'The member (or an admin) removes it; GET answers 204 after. Answers 204.',
  },
  'GET /members/:memberId/payment-method-mandate-preview': {
    summary: 'Preview a member’s SEPA mandate',
    description:
      'The mandate the member would sign: the creditor id and mandate text of the space’s billing settings, with the member’s account holder, IBAN and mandate reference.',
  },
  'GET /members/:memberId/trained-resources': {
    summary: 'The resources a member is trained for',
    description:
      'Ids of the resources requiring training for which the member holds a training of an active course, valid today in the member’s space.',
  },
  'PUT /members/:memberId/trainings/:trainingId': {
    summary: 'Change a member’s training',
    description: `Its \`date\`, \`fromDate\`, \`untilDate\` and \`notes\`. Emits memberTraining_updated. ${locked}`,
    admins: true,
    errors: { 422: '`untilDate` is before `fromDate`.' },
    body: { untilDate: '2027-11-20', lockVersion: 1 },
  },
};

/** Operations the spaces, bookings and resources collections added (generated summaries win; errors and examples from here). */
const spacesAndResourcesAdded: Record<string, CatalogueEntry> = {
  'GET /space-billing-settings/:billingSettingsId': {
    summary: 'Get billing settings by their id',
    description: 'The same as GET /spaces/{spaceId}/billing-settings (404 for plain members).',
  },
  'DELETE /bookings/:bookingId': {
    summary: 'Delete a booking',
    description:
      'Removes the booking (members cancel with PUT `state: cancelled` instead). Sends `booking_deleted`. Answers 204.',
    admins: true,
  },
  'PUT /resource-logs/:logId': {
    summary: 'Correct a resource log',
    description: `${locked} \`originalMember\` keeps the member the log was first recorded for; sends \`resourceLog_updated\`.`,
    admins: true,
    errors: { 422: 'The member does not exist in this account, or `stoppedAt` is before `createdAt`.' },
    body: { lockVersion: 2, member: 42, stoppedAt: '2026-11-21T15:30:00Z', stopType: 'normal' },
  },
  'DELETE /resource-logs/:logId': {
    summary: 'Delete a resource log',
    description: 'Sends `resourceLog_deleted` with the log as it was. Answers 204.',
    admins: true,
    errors: { 409: 'The log’s session is still running (`data.runningSession`): stop it first.' },
  },
};

/** The report figures (routes/reports.routes.ts gives each its own summary and description). */
const reportFor = (what: string): CatalogueEntry => ({
  summary: `Report: ${what}`,
  description: `${what}, per day, week or month of the space’s time zone.`,
  admins: true,
});
const reports: Record<string, CatalogueEntry> = {
  'GET /reports/usage': reportFor('use of each resource'),
  'GET /reports/refusals': reportFor('refusals by reason'),
  'GET /reports/members': reportFor('active, new and ended members'),
  'GET /reports/revenue': reportFor('revenue by package and by resource'),
};

/** Other spellings of the same operations: the spec’s singular /space paths and Fabman’s bridge path. */
const aliases: Record<string, string> = {
  'PUT /space/:spaceId/holidays/:holidayId': 'PUT /spaces/:spaceId/holidays/:holidayId',
  'DELETE /space/:spaceId/holidays/:holidayId': 'DELETE /spaces/:spaceId/holidays/:holidayId',
  'DELETE /space/:spaceId/billing-settings/stripe': 'DELETE /spaces/:spaceId/billing-settings/stripe',
  'POST /resources/:resourceId/bridge/switch-on': 'POST /resources/:resourceId/switch-on',
  'POST /resources/:resourceId/switch-off': 'POST /resources/:resourceId/bridge/switch-off',
};

/** Fabman's `/bridge/` spellings answer 201, the others 200: each says so in its own entry. */
const statusOf: Record<string, string> = {
  'POST /resources/:resourceId/bridge/switch-on': 'Answers 201, as Fabman does on this path.',
  'POST /resources/:resourceId/bridge/switch-off': 'Answers 201, as Fabman does on this path.',
  'POST /resources/:resourceId/switch-on': 'Answers 200.',
  'POST /resources/:resourceId/switch-off': 'Answers 200.',
};

const byOperation: Record<string, CatalogueEntry> = {
  ...members,
  ...apiKeys,
  ...resources,
  ...bridge,
  ...webhooks,
  ...spaces,
  ...spacesAndResourcesAdded,
  ...training,
  ...billing,
  ...signIn,
  ...operations,
  ...memberSubresources,
  ...reports,
};
for (const [alias, of] of Object.entries(aliases)) {
  const entry = byOperation[of];
  byOperation[alias] = { ...entry, description: `${entry.description} Also at ${of.split(' ')[1]}.` };
}
for (const [operation, status] of Object.entries(statusOf)) {
  byOperation[operation] = {
    ...byOperation[operation],
    description: `${byOperation[operation].description} ${status}`,
  };
}

export const operationCatalogue: Readonly<Record<string, CatalogueEntry>> = byOperation;
