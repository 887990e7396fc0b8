/**
 * A program run on a pseudo-terminal has finished when it has exited and its last output has been
 * read: node-pty may report the exit before the last data (on a loaded machine the final lines of
 * a run arrived after onExit, and a test saw a screen without its summary). The exit code is given
 * once the terminal has been quiet for `quietMs` after the exit (the output is all written by
 * then; reading it takes the event loop's next turns).
 */
import type { IPty } from 'node-pty';

export function ptyExited(p: IPty, quietMs = 300): Promise<number> {
  return new Promise((resolve) => {
    let last = 0;
    let code: number | null = null;
    p.onData(() => {
      last = Date.now();
    });
    const check = (): void => {
      const idle = Date.now() - last;
      if (idle >= quietMs) resolve(code!);
      else setTimeout(check, quietMs - idle);
    };
    p.onExit(({ exitCode }) => {
      code = exitCode;
      last = Math.max(last, Date.now());
      setTimeout(check, quietMs);
    });
  });
}
