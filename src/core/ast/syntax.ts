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

/** The products whose compatibility table has this modifier. */
export function productsOf(name: string): Syntax[] {
  if (DNS_MODIFIERS.has(name)) return ['AdGuard'];
  return PRODUCTS.filter(([, platform]) => modifiersCompatibilityTable.exists(name, platform)).map(([s]) => s);
}

/**
 * The rule's dialect: AGTree's answer, refined for network rules whose modifiers exist
 * for one product only (`$dnsrewrite` is AdGuard, `$1p` is uBlock Origin…). Modifiers
 * that point at different products leave it `Common`.
 */
export function detectSyntax(ast: AnyRule): Syntax {
  const syntax = (ast as { syntax?: string }).syntax as Syntax;
  if (ast.type !== 'NetworkRule' || syntax !== 'Common' || !ast.modifiers) return syntax ?? 'Common';
  const exclusive = new Set<Syntax>();
  for (const modifier of ast.modifiers.children as Modifier[]) {
    const products = productsOf(modifier.name.value);
    if (products.length === 1) exclusive.add(products[0]);
  }
  return exclusive.size === 1 ? [...exclusive][0] : 'Common';
}
