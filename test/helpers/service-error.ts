import { ServiceError } from '../../lib/core/errors.ts';

/** The ServiceError that `fn` throws; any other outcome fails the test. */
export function thrownServiceError(fn: () => unknown): ServiceError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('expected a ServiceError');
}
