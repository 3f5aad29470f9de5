// Placement constraints as swarmkit's manager/constraint parses them: `key==value` or
// `key!=value`, "==" looked for first, key and value trimmed and checked against its patterns. Its
// errors are plain ones, so the control API answers them as gRPC Unknown: a 500.
import { EngineError } from '../../errors.js';

export interface Constraint {
  key: string;
  operator: '==' | '!=';
  value: string;
}

const OPERATORS = ['==', '!='] as const;
const KEY = /^[a-z_][a-z0-9\-_.]+$/i;
// Go's \s is [\t\n\f\r ]; the value may not hold operators (<, >, ~, …) present or to come
const VALUE = /^[a-z0-9:\-_\t\n\f\r .*()?+[\]\\^$|/]+$/i;

export function parseConstraints(exprs: readonly string[]): Constraint[] {
  return exprs.map((expr) => {
    const operator = OPERATORS.find((op) => expr.includes(op));
    if (operator === undefined) throw unknown(`constraint expected one operator from ${OPERATORS.join(', ')}`);
    const at = expr.indexOf(operator);
    const key = expr.slice(0, at).trim();
    if (!KEY.test(key)) throw unknown(`key '${key}' is invalid`);
    const value = expr.slice(at + operator.length).trim();
    if (!VALUE.test(value)) throw unknown(`value '${value}' is invalid`);
    return { key, operator, value };
  });
}

function unknown(message: string): EngineError {
  return new EngineError('system', `rpc error: code = Unknown desc = ${message}`);
}
