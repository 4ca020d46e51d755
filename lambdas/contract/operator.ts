/**
 * Who runs the store: the facts the terms, privacy, refund and contact pages publish
 * (catalog/storefront/operator-pages.ts), from CDK context in a deploy (`-c operatorLegalName=…`,
 * read by lib/deploy-config.ts and handed to the catalog build by bin/app.ts). None has a true
 * default: a setting left out takes a placeholder that says it is one, the pages then carry an
 * "example operator, not for publication" notice, and the stack carries a CloudFormation rule that
 * refuses the deploy (lib/constructs/deploy-settings.ts). Locally (`npm start`, the tests) the
 * placeholders are what the pages show. Pure: the caller reads context and passes the raw values.
 */
import { isEmail } from './email';

/** One operator setting: its CDK context key, what it means, and the placeholder used without it. */
export interface OperatorSettingSpec {
  context: string;
  description: string;
  placeholder: string;
}

/** Every operator setting, in the order the operator docs list them. */
export const OPERATOR_SETTINGS = {
  legalName: {
    context: 'operatorLegalName',
    description:
      'The legal name of the person or company that sells the packs: the seller in the terms and the controller in the privacy notice.',
    placeholder: 'Example Operator (placeholder)',
  },
  email: {
    context: 'operatorEmail',
    description: 'The address buyers write to for support, refunds and data requests.',
    placeholder: 'operator@example.invalid',
  },
  postalAddress: {
    context: 'operatorPostalAddress',
    description: 'The postal address for notices, on one line (e.g. "1 Main Street, 10115 Berlin, Germany").',
    placeholder: '1 Example Street, Example City (placeholder)',
  },
  jurisdiction: {
    context: 'operatorJurisdiction',
    description: 'Whose law governs the terms and whose courts hear disputes (e.g. "Germany", "England and Wales").',
    placeholder: 'Exampleland (placeholder)',
  },
  refundDays: {
    context: 'operatorRefundDays',
    description: 'Days after a card purchase within which a refund may be asked for (a whole number, 0 to 365).',
    placeholder: '14',
  },
  supportHours: {
    context: 'operatorSupportHours',
    description: 'When support answers, and how soon (e.g. "Monday to Friday, 09:00 to 17:00 CET; answers within two working days").',
    placeholder: 'Example hours (placeholder)',
  },
} as const satisfies Record<string, OperatorSettingSpec>;

export type OperatorSettingName = keyof typeof OPERATOR_SETTINGS;

/** The settings as the pages use them. */
export interface Operator {
  legalName: string;
  email: string;
  postalAddress: string;
  jurisdiction: string;
  refundDays: number;
  supportHours: string;
}

export interface OperatorReading {
  operator: Operator;
  /** The settings that were not given and hold their placeholder: a deploy must not publish the pages with any. */
  placeholders: OperatorSettingName[];
  /** Every given value that breaks its rule; the synth refuses them all at once. */
  problems: string[];
}

const MAX_TEXT = 300;

/**
 * Reads the operator settings from raw strings (context values as given). A missing or blank value
 * takes its placeholder; a given one is checked (an email address, a whole number of days, one line
 * of at most 300 characters) and a bad one is a problem, never silently replaced.
 */
export function readOperator(raw: Partial<Record<OperatorSettingName, string>>): OperatorReading {
  const placeholders: OperatorSettingName[] = [];
  const problems: string[] = [];
  const value = (name: OperatorSettingName): string => {
    const given = raw[name]?.trim();
    if (given === undefined || given === '') {
      placeholders.push(name);
      return OPERATOR_SETTINGS[name].placeholder;
    }
    const key = OPERATOR_SETTINGS[name].context;
    if (given.length > MAX_TEXT) problems.push(`${key} is longer than ${MAX_TEXT} characters`);
    if (/[\r\n]/.test(given)) problems.push(`${key} must be one line (separate the parts of an address with commas)`);
    return given;
  };
  const legalName = value('legalName');
  const email = value('email');
  if (!placeholders.includes('email') && !isEmail(email)) problems.push(`operatorEmail is not an email address: "${email}"`);
  const postalAddress = value('postalAddress');
  const jurisdiction = value('jurisdiction');
  const days = value('refundDays');
  const refundDays = Number(days);
  if (!/^\d{1,3}$/.test(days) || refundDays > 365)
    problems.push(`operatorRefundDays must be a whole number of days from 0 to 365, got "${days}"`);
  const supportHours = value('supportHours');
  return { operator: { legalName, email, postalAddress, jurisdiction, refundDays, supportHours }, placeholders, problems };
}

/** The pages' settings with every placeholder: what `npm start` and the tests render. */
export const PLACEHOLDER_OPERATOR: OperatorReading = readOperator({});
