/**
 * Column types shared by every migration so both engines get the same shapes:
 * times are epoch milliseconds (bigint), JSON is text, booleans are 0/1 integers.
 */
export const T = {
  id: 'text',
  text: 'text',
  time: 'bigint',
  number: 'double precision',
  int: 'integer',
  bigint: 'bigint',
  json: 'text',
  bool: 'integer',
} as const;
