import type { EditorHints } from "@groove/editor-client/connection";

/** The plugin's settings, in the words of its settings tab (every fix text uses them). */
export const OBSIDIAN_HINTS: Omit<EditorHints, "executable" | "vault"> = {
  executableSetting: 'the "groove executable" setting (Settings → groove)',
  autoStartSetting: '"Auto-start daemon" (Settings → groove)',
};
