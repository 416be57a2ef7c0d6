// cac parses through mri, which turns number-like values into numbers (`0123` becomes 123,
// `1e3` becomes 1000, an empty value 0). Secrets and names must keep their exact text, so
// those options are read from the command line as typed.

/**
 * Every value given for `flag`, as `--flag VALUE` or `--flag=VALUE`, before any `--`. As with
 * the parser, a next argument that starts with `-` is not a value (the flag's value is then
 * empty), unless it is a negative number (`--drain-seconds -1`).
 */
export function rawOptionValues(argv: readonly string[], flag: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg.startsWith(`${flag}=`)) values.push(arg.slice(flag.length + 1));
    else if (arg === flag) values.push(argv[i + 1] === undefined || (argv[i + 1]!.startsWith('-') && !/^-\d/.test(argv[i + 1]!)) ? '' : argv[++i]!);
  }
  return values;
}
