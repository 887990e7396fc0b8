/**
 * Test certificates made with openssl (a test that calls these needs it: `needs('openssl')`,
 * test/helpers/tools.ts). One set-up for every suite that wants a certificate: the SMTP server's
 * STARTTLS certificate (test/server/inbound.test.ts) and the document locker's CA
 * (test/server/locker.test.ts).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** Run openssl in `dir`; a failure throws with openssl's stderr. */
export function runOpenssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/**
 * A self-signed certificate with a new 2048-bit RSA key in `dir`: `NAME.key` and `NAME.pem`.
 * `subject` as openssl writes it (`/CN=localhost`); `altNames` (`DNS:localhost,IP:127.0.0.1`) when
 * a TLS client checks the host.
 */
export function selfSigned(
  dir: string,
  o: { name: string; subject: string; days: number; altNames?: string },
): { keyFile: string; certFile: string } {
  const keyFile = path.join(dir, `${o.name}.key`);
  const certFile = path.join(dir, `${o.name}.pem`);
  runOpenssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    keyFile,
    '-out',
    certFile,
    '-subj',
    o.subject,
    '-days',
    String(o.days),
    ...(o.altNames ? ['-addext', `subjectAltName=${o.altNames}`] : []),
  ]);
  return { keyFile, certFile };
}
