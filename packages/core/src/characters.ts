import { familyOf } from './styles';

export type CharacterBehavior = 'match' | 'lock';

export interface CharacterLook {
  behavior: CharacterBehavior;
  /** Lock: the exact style whose look the character keeps. */
  lockedStyle: string | null;
  /** Lock: the visual family whose look the character keeps. */
  lockedFamily: string | null;
}

export type ReferenceChoice = { source: 'original' } | { source: 'prepared'; family: string };

/**
 * Which references a scene uses (spec, "Character appearance rules"):
 * - Match adapts to the scene style's visual family; a custom or unmapped scene style (no family)
 *   and no style at all use the original references.
 * - Lock keeps one look: an exact locked style takes precedence over a locked family; a locked
 *   style without a family (custom or unmapped) uses the originals; with neither configured,
 *   lock preserves the original appearance.
 * `familyOfStyle` maps a style id to its visual family (presets only; own styles pass their base).
 */
export function chooseCharacterReference(
  look: CharacterLook,
  sceneStyle: string | undefined,
  familyOfStyle: (style: string) => string | undefined = (s) => familyOf(s),
): ReferenceChoice {
  if (look.behavior === 'lock') {
    if (look.lockedStyle) {
      const family = familyOfStyle(look.lockedStyle);
      return family ? { source: 'prepared', family } : { source: 'original' };
    }
    if (look.lockedFamily) return { source: 'prepared', family: look.lockedFamily };
    return { source: 'original' };
  }
  const family = sceneStyle ? familyOfStyle(sceneStyle) : undefined;
  return family ? { source: 'prepared', family } : { source: 'original' };
}

/** Key of a prepared reference: reused until the character's sources change. */
export const preparedReferenceKey = (characterId: string, family: string, sourceVersion: number) => `${characterId}:${family}:v${sourceVersion}`;
