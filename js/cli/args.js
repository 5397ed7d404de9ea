// The CLI's flags read and checked in its own words: a bad value names the flag and what it may be
// (never Node's option-parser message or the API's camelCase field name). Parsing only: what the
// commands do with the values is js/cli/cli.js.
import { parseArgs } from 'node:util';

/** A mistake in how the command was called: one line on stderr, exit 2. */
export class UsageError extends Error {}

/**
 * parseArgs (strict) over `args`, with two things it cannot do alone: a value that starts with a
 * dash (`--temperature -1`, `--text "-5 degrees"`), which it calls ambiguous, is taken as the
 * value unless it is one of the command's flags; and a flag whose value is optional
 * (`--logit-lens [K]`) gets `optional[flag]` when none follows.
 */
export function parseFlags(args, options, optional = {}) {
  const known = new Set(Object.keys(options).map((name) => `--${name}`));
  const isFlag = (arg) => known.has(arg.split('=')[0]) || arg === '-h';
  const out = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i], next = args[i + 1];
    const option = options[arg.slice(2)];
    if (!arg.startsWith('--') || arg.includes('=') || option?.type !== 'string') {
      out.push(arg);
    } else if (next === undefined || isFlag(next)) {
      if (!(arg in optional)) throw new UsageError(`${arg} needs a value`);
      out.push(arg, optional[arg]);
    } else {
      out.push(`${arg}=${next}`);   // the = form keeps a leading dash a value
      i++;
    }
  }
  try {
    return parseArgs({ args: out, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(error.message.split('\n')[0]);
  }
}

/** A whole number >= min (undefined when the flag is absent). */
export function optionalInteger(text, flag, min) {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min) throw new UsageError(`${flag} must be an integer >= ${min}, got "${text}"`);
  return Number(text);
}

/**
 * A number in a range (undefined when absent): {min, minOpen (min itself is out), max, note (what
 * a value means, said after the range)}.
 */
export function optionalNumber(text, flag, { min, minOpen = false, max, note } = {}) {
  if (text === undefined) return undefined;
  const value = Number(text);
  const low = min === undefined || (minOpen ? value > min : value >= min);
  const high = max === undefined || value <= max;
  if (text.trim() === '' || !Number.isFinite(value) || !low || !high) {
    const range = [min === undefined ? '' : `${minOpen ? '>' : '>='} ${min}`, max === undefined ? '' : `<= ${max}`]
      .filter(Boolean).join(' and ');
    throw new UsageError(`${flag} must be a number${range ? ` ${range}` : ''}${note ? ` (${note})` : ''}, got "${text}"`);
  }
  return value;
}

/** Comma-separated integers ("101,2023,102"). */
export function integerList(text, flag) {
  const parts = text.split(',').map((s) => s.trim());
  if (parts.length === 0 || parts.some((s) => !/^-?\d+$/.test(s))) {
    throw new UsageError(`${flag} must be comma-separated integers, got "${text}"`);
  }
  return parts.map(Number);
}

/**
 * A text flag that, when given, holds some text: an empty (or all-space) one would run the
 * special tokens alone, which is never what was meant. `what` says what to give instead.
 */
export function refuseEmpty(text, flag, what) {
  if (text !== undefined && text.trim() === '') throw new UsageError(`${flag} is empty: ${what}`);
}
