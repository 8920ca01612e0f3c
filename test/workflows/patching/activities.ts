/** The one activity of the patching fixtures: records that a step of the series ran. */
export interface SeriesActivities {
  runStep(name: string): Promise<string>;
}
