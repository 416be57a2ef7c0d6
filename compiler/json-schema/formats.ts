// String formats as ECMAScript regular expressions over the decoded value. Each accepts a
// subset of what ajv-formats' full mode accepts (dates check days per month and leap years;
// leap seconds, space-separated date-times and IPv6 URI hosts are left out).

const DAY31 = '(?:0[1-9]|[12]\\d|3[01])';
const DAY30 = '(?:0[1-9]|[12]\\d|30)';
const DAY28 = '(?:0[1-9]|1\\d|2[0-8])';
const LEAP_YEAR = '(?:\\d\\d(?:[02468][48]|[13579][26]|[2468]0)|(?:[02468][048]|[13579][26])00)';
const DATE = `(?:\\d{4}-(?:(?:0[13578]|1[02])-${DAY31}|(?:0[469]|11)-${DAY30}|02-${DAY28})|${LEAP_YEAR}-02-29)`;
const TIME = '(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:[zZ]|[+-](?:[01]\\d|2[0-3])(?::?[0-5]\\d)?)';
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = `(?:${OCTET}\\.){3}${OCTET}`;
const H = '[0-9a-fA-F]{1,4}';
const IPV6 = [
  `(?:${H}:){7}(?:${H}|:)`,
  `(?:${H}:){6}(?::${H}|${IPV4}|:)`,
  `(?:${H}:){5}(?:(?::${H}){1,2}|:${IPV4}|:)`,
  `(?:${H}:){4}(?:(?::${H}){1,3}|(?::${H})?:${IPV4}|:)`,
  `(?:${H}:){3}(?:(?::${H}){1,4}|(?::${H}){0,2}:${IPV4}|:)`,
  `(?:${H}:){2}(?:(?::${H}){1,5}|(?::${H}){0,3}:${IPV4}|:)`,
  `(?:${H}:)(?:(?::${H}){1,6}|(?::${H}){0,4}:${IPV4}|:)`,
  `:(?:(?::${H}){1,7}|(?::${H}){0,5}:${IPV4}|:)`,
].join('|');
const ATEXT = "[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]";
const LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?';
const PCT = '%[0-9a-fA-F]{2}';
const UNRESERVED_SUB = "\\-a-zA-Z0-9._~!$&'()*+,;=";
const PCHAR = `(?:[${UNRESERVED_SUB}:@]|${PCT})`;

export const FORMATS: Record<string, string> = {
  date: DATE,
  time: TIME,
  'date-time': `${DATE}[tT]${TIME}`,
  email: `${ATEXT}+(?:\\.${ATEXT}+)*@(?:${LABEL}\\.)+${LABEL}`,
  uuid: '(?:[uU][rR][nN]:[uU][uU][iI][dD]:)?[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}',
  ipv4: IPV4,
  ipv6: `(?:${IPV6})`,
  uri:
    `[a-zA-Z][a-zA-Z0-9+.-]*:(?://(?:(?:[${UNRESERVED_SUB}:]|${PCT})*@)?(?:[${UNRESERVED_SUB}]|${PCT})*(?::\\d*)?|${PCHAR}+)?` +
    `(?:/${PCHAR}*)*(?:\\?(?:[${UNRESERVED_SUB}:@/?]|${PCT})*)?(?:#(?:[${UNRESERVED_SUB}:@/?]|${PCT})*)?`,
};
