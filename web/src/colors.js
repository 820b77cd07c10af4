// colors.js - one colour per body index, the same in 2-D and 3-D.
const PALETTE = ['#1f5fbf', '#c0392b', '#2e8b57', '#8e44ad', '#d35400', '#16a085', '#7f8c8d', '#b8860b'];

export function bodyColor(b) { return PALETTE[((b % PALETTE.length) + PALETTE.length) % PALETTE.length]; }
