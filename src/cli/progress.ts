/**
 * A one-line progress display for long runs (`cas parse` on a folder): an ora spinner with a bar,
 * the count, the elapsed time and the current file, redrawn in place on stderr. Only on a terminal and without
 * --quiet; on a pipe or a file it prints nothing at all.
 */
import type { Context } from './context.js';
import { truncate } from './output.js';

export interface Progress {
  /** `done` files finished; `file` the one being worked on (or the last finished). */
  update: (done: number, file: string) => void;
  /** Clears the line (call before printing anything else). */
  stop: () => void;
}

const SILENT: Progress = { update: () => undefined, stop: () => undefined };

function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

export function progressLine(done: number, total: number, elapsedMs: number, file: string, width: number): string {
  // A narrow terminal gets a shorter bar, so that the file's name keeps its room.
  const size = width < 60 ? 10 : 20;
  const filled = Math.round((done / total) * size);
  const head = `[${'#'.repeat(filled)}${'-'.repeat(size - filled)}] ${done}/${total} ${clock(elapsedMs)} `;
  // The file's name is what people look for: a long path loses its start, never its end.
  const room = Math.max(10, width - 1) - head.length;
  const shown = room <= 1 ? '' : file.length <= room ? file : `…${file.slice(file.length - room + 1)}`;
  return truncate(`${head}${shown}`, Math.max(10, width - 1));
}

export async function startProgress(ctx: Context, total: number): Promise<Progress> {
  if (!ctx.stderrTty || ctx.opts.quiet || total < 2) return SILENT;
  const ora = (await import('ora')).default;
  const started = Date.now();
  let done = 0;
  let file = '';
  // ora draws the spinner and the line in place on stderr; stdin is left alone (`cas parse -`).
  const spinner = ora({ stream: process.stderr, discardStdin: false, isEnabled: true }).start();
  const draw = (): void => {
    spinner.text = progressLine(done, total, Date.now() - started, file, (process.stderr.columns || 80) - 2);
    spinner.render();
  };
  // Redraw every second so that the elapsed time moves while one large file is parsed.
  const timer = setInterval(draw, 1000);
  timer.unref();
  draw();
  return {
    update: (n, f) => {
      done = n;
      file = f === '-' ? 'stdin' : f;
      draw();
    },
    stop: () => {
      clearInterval(timer);
      spinner.stop();
    },
  };
}
