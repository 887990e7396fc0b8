/** The one way a zod validation failure becomes a message: `path: problem` of the first issue. */
import type { z } from 'zod';

export function zodMessage(e: z.ZodError, root = 'body'): string {
  const i = e.issues[0];
  if (!i) return `${root}: invalid`;
  return `${i.path.join('.') || root}: ${i.message}`;
}
