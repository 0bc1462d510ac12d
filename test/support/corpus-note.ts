/** Why a test of the real lists is skipped: in its name and in the run's closing lines. */
export const NEEDS_CORPUS = 'needs FLC_CORPUS, the folder of real lists (see Quick start in the README)';
