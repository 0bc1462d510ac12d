import { GenericPlatform, modifiersCompatibilityTable, type AnyRule, type Modifier } from '@adguard/agtree';

export type Syntax = 'Common' | 'AdGuard' | 'UblockOrigin' | 'AdblockPlus';

/** Each product and its platform in AGTree's compatibility tables and modifier validator. */
export const PRODUCTS: [Syntax, GenericPlatform][] = [
  ['AdGuard', GenericPlatform.AdgAny],
  ['UblockOrigin', GenericPlatform.UboAny],
  ['AdblockPlus', GenericPlatform.AbpAny],
];

/** AdGuard DNS modifiers that AGTree's compatibility tables do not know. */
export const DNS_MODIFIERS = new Set(['dnsrewrite', 'dnstype', 'client', 'ctag']);

/** Modifiers whose value is a `|`-separated domain list. */
export const DOMAIN_LIST_MODIFIERS = new Set(['domain', 'from', 'to', 'denyallow']);

/**
 * The rule's dialect: AGTree's answer, refined for network rules whose modifiers exist
 * for one product only (`$dnsrewrite` is AdGuard, `$1p` is uBlock Origin…). Modifiers
 * that point at different products leave it `Common`.
 */
export function detectSyntax(ast: AnyRule): Syntax {
  const syntax = (ast as { syntax?: string }).syntax as Syntax;
  if (ast.type !== 'NetworkRule' || syntax !== 'Common' || !ast.modifiers) return syntax ?? 'Common';
  const exclusive = new Set<Syntax>();
  for (const { name } of ast.modifiers.children as Modifier[]) {
    // The products whose compatibility table has this modifier.
    const products = DNS_MODIFIERS.has(name.value)
      ? ['AdGuard' as const]
      : PRODUCTS.filter(([, platform]) => modifiersCompatibilityTable.exists(name.value, platform)).map(([s]) => s);
    if (products.length === 1) exclusive.add(products[0]);
  }
  return exclusive.size === 1 ? [...exclusive][0] : 'Common';
}
