/**
 * A hit's `explain` object (docs/protocol.md, SearchParams) as one line, the
 * same words as the CLI's `--explain` and the MCP text: the legs that found
 * the hit with their rank and RRF share, the fused score, then stages 2–4.
 */
import type { HitExplain } from "./protocol";

export function describeExplain(e: HitExplain): string {
  const legs = Object.entries(e.legs ?? {}).map(([name, leg]) => {
    if (!leg) return "";
    const extra = (["cosine", "coverage"] as const).filter((k) => leg[k] !== undefined).map((k) => ` ${k} ${leg[k]}`).join("");
    return `${name} #${leg.rank} (+${leg.rrf.toFixed(4)}${extra})`;
  }).filter(Boolean);
  const parts = [legs.join(", ") || "no leg", `fused ${(e.fused_score ?? 0).toFixed(4)} = stage-1 #${e.stage1_rank}`];
  if (e.rerank) parts.push(`reranked ${e.rerank.score.toFixed(3)} -> #${e.rerank.rank}`);
  if (e.mmr) parts.push(`MMR #${e.mmr.rank_before} -> #${e.mmr.rank_after}`);
  if (e.expanded) parts.push("widened by the parent retriever");
  return parts.join("; ");
}
