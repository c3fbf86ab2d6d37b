/**
 * The params of the JSON-RPC requests this server answers, checked before the SDK sees them. The SDK
 * answers a malformed `initialize` or `tools/call` with -32603 (internal error) and its schema
 * library's raw issue dump; a client deserves -32602 (invalid params) and one sentence naming the
 * member. Only the shape the SDK would refuse is checked here; tool arguments are the tools' own.
 */
import { isPlainObject } from '../../lib/json.ts';

type Check = (params: Record<string, unknown>) => string | null;

const isString = (value: unknown) => typeof value === 'string';
const optional = (value: unknown, test: (v: unknown) => boolean) => value === undefined || test(value);

const CHECKS: Record<string, Check> = {
  initialize(params) {
    if (!isString(params.protocolVersion)) return 'params.protocolVersion must be a string';
    if (!isPlainObject(params.capabilities)) return 'params.capabilities must be an object';
    const info = params.clientInfo;
    if (!isPlainObject(info)) return 'params.clientInfo must be an object with name and version';
    if (!isString(info.name)) return 'params.clientInfo.name must be a string';
    if (!isString(info.version)) return 'params.clientInfo.version must be a string';
    return null;
  },
  'tools/call'(params) {
    if (!isString(params.name)) return 'params.name must be the name of a tool (a string)';
    if (!optional(params.arguments, isPlainObject)) return 'params.arguments must be an object';
    return null;
  },
  'tools/list'(params) {
    return optional(params.cursor, isString) ? null : 'params.cursor must be a string';
  },
};

export interface RpcParamsError {
  jsonrpc: '2.0';
  id: string | number;
  error: { code: -32602; message: string };
}

/** The -32602 answer for a request whose params the SDK would refuse, or null to let it through. */
export function rpcParamsError(body: unknown): RpcParamsError | null {
  if (!isPlainObject(body) || typeof body.method !== 'string') return null;
  const { id, method, params } = body;
  if (typeof id !== 'string' && typeof id !== 'number') return null;
  const check = CHECKS[method];
  if (!check) return null;
  const problem =
    params === undefined && method === 'tools/list'
      ? null
      : isPlainObject(params)
        ? check(params)
        : 'params must be an object';
  return problem
    ? { jsonrpc: '2.0', id, error: { code: -32602, message: `Invalid params for ${method}: ${problem}.` } }
    : null;
}
