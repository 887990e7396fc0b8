/** The parse core: one parse job, its error map and limits, and the worker pool that runs it. */
export { ERROR_MAP, errorInfo, jobError, PASSWORD_HINT, type JobError } from './errors.js';
export { DEFAULT_PARSE_LIMITS, defaultWorkers, parseLimits, type ParseLimits } from './limits.js';
export {
  openWithPasswords,
  runParseJob,
  type ParseFailure,
  type ParseJob,
  type ParseOutcome,
  type ParseSuccess,
  type PasswordPlan,
} from './parse-job.js';
export { ParsePool, type PoolOptions, type PoolStats } from './pool.js';
