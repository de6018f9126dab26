import { createHelpdeskClient, type HelpdeskClient, type RawResponse } from '@helpdesk/client';
import { assertAnswerMatchesOpenApi } from './openapi-check';

/**
 * The platform tests' HTTP client: every call returns status, headers and the parsed body (never
 * throws on a status), through `@helpdesk/client`'s low-level `request`; and every answer is checked
 * against the OpenAPI document (./openapi-check): an undocumented status or a body the document does
 * not describe fails the test.
 */
export type ApiResponse<T = any> = RawResponse<T>;

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  /** Sent as is (for invalid JSON tests); wins over `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean | (string | number)[]>;
  /**
   * Checks the answer against the OpenAPI document (default true). Turn it off only for a request that
   * deliberately steps outside the API (the answer it gets is then not the document's business).
   */
  checkOpenApi?: boolean;
}

export class ApiClient {
  private readonly client: HelpdeskClient;

  constructor(
    readonly baseUrl: string,
    readonly defaultKey: string | null = null,
  ) {
    // No retries: a test sees every answer, 429s included, exactly as the API sent it.
    this.client = createHelpdeskClient({ baseUrl, apiKey: defaultKey, maxRetries: 0, autoIdempotencyKey: false });
  }

  withKey(key: string | null): ApiClient {
    return new ApiClient(this.baseUrl, key);
  }

  async request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
    const { checkOpenApi = true, ...rest } = opts;
    const res = await this.client.request<T>(method, path, rest);
    if (checkOpenApi) {
      assertAnswerMatchesOpenApi({ method, url: this.baseUrl + path, status: res.status, body: res.body, contentType: res.headers.get('content-type') });
    }
    return res;
  }

  get<T = any>(path: string, opts?: RequestOptions) {
    return this.request<T>('GET', path, opts);
  }
  post<T = any>(path: string, body?: unknown, opts: RequestOptions = {}) {
    return this.request<T>('POST', path, { ...opts, body });
  }
  patch<T = any>(path: string, body?: unknown, opts: RequestOptions = {}) {
    return this.request<T>('PATCH', path, { ...opts, body });
  }
  delete<T = any>(path: string, opts: RequestOptions = {}) {
    return this.request<T>('DELETE', path, opts);
  }
}
