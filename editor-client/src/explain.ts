/**
 * A hit's `explain` object (docs/protocol.md, SearchParams) as one line, the
 * same words as the CLI's `--explain` and the MCP text: the legs that found
 * the hit with their rank and RRF share, the fused score, then stages 2–4.
 */
import type { ConfidenceExplain, HitExplain, SearchHit, SearchResponse } from "./protocol";

/** A hit's `explain` (typed loosely on the wire) as one line. */
export function describeExplain(explain: NonNullable<SearchHit["explain"]>): string {
  const e = explain as unknown as HitExplain;
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

/**
 * A search's `confidence` explanation as one line, the same words as the
 * CLI's `confidence:` line (groove/explain_text.py).
 */
export function describeConfidence(confidence: NonNullable<SearchResponse["confidence"]>): string {
  const c = confidence as unknown as ConfidenceExplain;
  const verdict = c.low_confidence ? "low" : "not low";
  if (c.score === undefined || c.threshold === undefined) {
    const why: Record<string, string> = {
      empty: "nothing matched",
      off: "the flag is turned off (min_confidence_ratio 0)",
      "no-vector": "no vector leg to judge by (full text only)",
    };
    return `${verdict}: ${why[c.rule] ?? c.rule}`;
  }
  const cmp = c.score < c.threshold ? "<" : ">=";
  const parts: string[] = [];
  if (c.best_passage_z !== undefined) parts.push(`best passage ${c.best_passage_z.toFixed(2)} spreads above unrelated questions`);
  const across = c.across_languages === true;
  if (c.known_share !== undefined && !(across && c.known_share === 1)) {
    parts.push(`${Math.floor(c.known_share * 100 + 0.5)}% of ${across ? "the other words" : "the query's words"} are in the vault`);
  }
  if (across) parts.push("asked in a script the vault is not written in: judged against that language's probes, its words in that script not counted");
  // low whatever the score (ADR 0220)
  if (c.unknown_names?.length) parts.push(`the vault never mentions ${c.unknown_names.map((n) => `"${n}"`).join(", ")}`);
  const head = `${verdict}: ${c.rule} score ${c.score.toFixed(2)} ${cmp} ${c.threshold}`;
  return parts.length ? `${head} (${parts.join("; ")})` : head;
}
