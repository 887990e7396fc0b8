/**
 * A real Dovecot IMAP server for the tests: started on a free loopback port with its own
 * config, a passwd-file user and a Maildir seeded with real MIME messages.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { tmpDir } from './cas.js';

export interface Dovecot {
  port: number;
  user: string;
  password: string;
  dir: string;
  stop: () => void;
  log: () => string;
  mailboxBytes: () => number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

/** Start Dovecot with messages: [raw RFC822, date]. */
export async function startDovecot(messages: [Buffer, Date][]): Promise<Dovecot> {
  const dir = tmpDir('cas-dovecot-');
  const port = await freePort();
  const user = 'investor@example.in';
  const password = 'app-password-123';
  const root = process.getuid?.() === 0;
  const me = os.userInfo().username;
  for (const d of ['run', 'state', 'home', `mail/${user}/cur`, `mail/${user}/new`, `mail/${user}/tmp`])
    mkdirSync(path.join(dir, d), { recursive: true });
  messages.forEach(([raw, date], i) => {
    const file = path.join(dir, 'mail', user, 'cur', `${Math.floor(date.getTime() / 1000)}.M${i}P1.cas-test:2,S`);
    writeFileSync(file, raw);
    utimesSync(file, date, date);
  });
  writeFileSync(path.join(dir, 'users'), `${user}:{PLAIN}${password}\n`, { mode: 0o644 });
  const conf = `base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
info_log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:${dir}/mail/%u
first_valid_uid = 1
default_login_user = ${root ? 'dovenull' : me}
default_internal_user = ${root ? 'dovecot' : me}
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/users
}
userdb {
  driver = static
  args = uid=${root ? 'dovecot' : me} gid=${root ? 'dovecot' : me} home=${dir}/home/%u
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
`;
  writeFileSync(path.join(dir, 'dovecot.conf'), conf);
  if (root) {
    // Dovecot's own users (auth, login) must be able to reach the files.
    chmodSync(dir, 0o755);
    const chownTree = (p: string, uid: number, gid: number): void => {
      chownSync(p, uid, gid);
      if (statSync(p).isDirectory()) for (const n of readdirSync(p)) chownTree(path.join(p, n), uid, gid);
    };
    const uid = Number(execFileSync('id', ['-u', 'dovecot']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'dovecot']).toString().trim());
    chownTree(path.join(dir, 'mail'), uid, gid);
    chownTree(path.join(dir, 'home'), uid, gid);
  }
  execFileSync('dovecot', ['-c', path.join(dir, 'dovecot.conf')], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const total = messages.reduce((s, [raw]) => s + raw.length, 0);
  return {
    port,
    user,
    password,
    dir,
    stop: () => {
      spawnSync('dovecot', ['-c', path.join(dir, 'dovecot.conf'), 'stop']);
    },
    log: () => {
      try {
        return readFileSync(path.join(dir, 'dovecot.log'), 'utf8');
      } catch {
        return '';
      }
    },
    mailboxBytes: () => total,
  };
}
