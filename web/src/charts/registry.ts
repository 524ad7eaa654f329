/**
 * Live charts by panel id. Tests read it (`window.inferlens.charts`) to find where a data point is
 * drawn and then click there like a person would.
 */
import type uPlot from 'uplot';

export const charts = new Map<string, uPlot>();

declare global {
  interface Window {
    inferlens?: { charts: Map<string, uPlot> };
  }
}
window.inferlens = { charts };
