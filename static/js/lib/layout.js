// lib/layout.js: the columns the Gantt chart and the time panels under it
// share, so that their time axes line up.
export const LABEL_W = 112;   // row labels (node band + worker name)
export const IDLE_W = 70;     // idle share column
