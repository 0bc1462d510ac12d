/** Every syntax-tree node type the walk can report, as the service specification lists them. */
export const NODE_TYPES = [
  'FilterList',
  'NetworkRule', 'HostRule', 'ModifierList', 'Modifier', 'HostnameList',
  'ElementHidingRule', 'ElementHidingRuleBody', 'CssInjectionRule', 'CssInjectionRuleBody',
  'ScriptletInjectionRule', 'ScriptletInjectionRuleBody', 'HtmlFilteringRule', 'JsInjectionRule', 'DomainList', 'Domain',
  'CommentRule', 'MetadataCommentRule', 'HintCommentRule', 'ConfigCommentRule', 'ConfigNode', 'AgentCommentRule',
  'PreProcessorCommentRule', 'EmptyRule',
  'Value', 'ParameterList', 'Hint', 'Agent',
  'Operator', 'Parenthesis', 'Variable',
  'App', 'Method', 'StealthOption', 'InvalidRule',
] as const;

export type NodeType = (typeof NODE_TYPES)[number];
