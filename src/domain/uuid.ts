/**
 * The one UUID test of the server (ids in paths, in the CLI's arguments): the
 * `uuid` package's, in any letter case. The ids the service hands out are
 * random (v4) or name-based (v5, the checks catalog) UUIDs, which it accepts;
 * a string of UUID shape with no valid version or variant is not one of them.
 */
import { validate } from 'uuid';

export function isUuid(value: string): boolean {
  return validate(value);
}
