/** Small stdin helpers. */
export async function readStdin(limit = 200 * 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += b.length;
    if (size > limit) throw new Error(`stdin is larger than ${limit} bytes`);
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}
