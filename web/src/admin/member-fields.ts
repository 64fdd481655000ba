import { tOr } from '../i18n/i18n';

/** A field of the member form: its key, label and kind of input. */
export type Kind = 'text' | 'email' | 'date' | 'check' | 'area' | 'gender' | 'state' | 'json';
export type FieldSpec = [key: string, label: string, kind?: Kind];

/** Every field of the member record a client may write, grouped as the form shows them. */
export const memberFieldGroups: [legend: string, fields: FieldSpec[]][] = [
  [
    'Person',
    [
      ['firstName', 'First name'],
      ['lastName', 'Last name'],
      ['emailAddress', 'E-mail address', 'email'],
      ['memberNumber', 'Member number'],
      ['phone', 'Phone'],
      ['company', 'Company'],
      ['dateOfBirth', 'Date of birth', 'date'],
      ['gender', 'Gender', 'gender'],
      ['language', 'Language (e.g. en, de)'],
    ],
  ],
  [
    'Address',
    [
      ['address', 'Address'],
      ['address2', 'Address line 2'],
      ['zip', 'Postcode'],
      ['city', 'City'],
      ['region', 'Region'],
      ['countryCode', 'Country code (e.g. AT)'],
    ],
  ],
  [
    'Billing',
    [
      ['hasBillingAddress', 'Invoices go to a billing address', 'check'],
      ['billingFirstName', 'Billing first name'],
      ['billingLastName', 'Billing last name'],
      ['billingCompany', 'Billing company'],
      ['billingAddress', 'Billing address'],
      ['billingAddress2', 'Billing address line 2'],
      ['billingZip', 'Billing postcode'],
      ['billingCity', 'Billing city'],
      ['billingRegion', 'Billing region'],
      ['billingCountryCode', 'Billing country code'],
      ['billingInvoiceText', 'Text on their invoices', 'area'],
      ['taxExempt', 'Tax exempt', 'check'],
      ['requireUpfrontPayment', 'Pays up front', 'check'],
      ['upfrontMinimumBalance', 'Minimum balance when paying up front'],
    ],
  ],
  [
    'Access and notes',
    [
      ['state', 'State', 'state'],
      ['allowLogin', 'May sign in to the web app', 'check'],
      ['notes', 'Notes', 'area'],
      ['metadata', 'Metadata (JSON)', 'json'],
    ],
  ],
];

const groupKeys: Record<string, string> = {
  Person: 'person',
  Address: 'address',
  Billing: 'billing',
  'Access and notes': 'access',
};

/** A field's label in the console's language (`admin.member_fields.<key>`). */
export const fieldLabel = (key: string, english: string) => tOr(`admin.member_fields.${key}`, english);

/** A group's legend in the console's language. */
export const groupLabel = (english: string) =>
  tOr(`admin.member_fields.group.${groupKeys[english] ?? english}`, english);
