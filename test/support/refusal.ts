import { refusalOf, type ApiError } from '../../server/src/http/errors';
import { DomainError } from '../../server/src/shared/domain-errors';

/**
 * The HTTP answer (status, code, message, details) that what `work` throws becomes in the app's `onError`: domain code
 * throws a `DomainError`, whose status is decided in one place (http/errors.ts). Fails when `work` does not refuse.
 */
export async function refusalFrom(work: () => unknown): Promise<ApiError> {
  try {
    await work();
  } catch (error) {
    const refusal = refusalOf(error);
    if (!refusal) throw error;
    return refusal;
  }
  throw new Error('expected a refusal, but the call succeeded');
}

/** The `DomainError` that `work` refuses with, as domain code throws it. Fails when `work` does not refuse. */
export async function domainRefusal(work: () => unknown): Promise<DomainError> {
  try {
    await work();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a refusal, but the call succeeded');
}
