import { IsOptional } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';

const CONDITION_REF = { $ref: '#/components/schemas/Condition' };

/**
 * A DTO property holding a condition tree, documented as a `$ref` to the hand-written `Condition`
 * schema (src/openapi/conditions.ts): a recursive tree is no class-validator shape. The DTO leaves
 * the value as sent; the route checks it with `parseCondition` after the other fields, so its
 * errors keep their paths inside the tree (`condition.groups[0].filters[1].operator`).
 */
export function ConditionTree(options: { nullable?: boolean; description?: string } = {}): PropertyDecorator {
  const schema = options.nullable ? { anyOf: [CONDITION_REF, { type: 'null' }] } : CONDITION_REF;
  const documented = JSONSchema({ ...schema, ...(options.description ? { description: options.description } : {}) } as never) as PropertyDecorator;
  return (target, key) => {
    IsOptional()(target, key as string);
    documented(target, key);
  };
}
