'use strict';

// Student's t, two-sided 95%, for `dof` degrees of freedom (a table; 1.96 past it).
const T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228];
function t95(dof) {
  if (dof < 1) return Infinity;
  if (dof <= 10) return T95[dof - 1];
  if (dof <= 15) return 2.228 - ((dof - 10) / 5) * (2.228 - 2.131);
  if (dof <= 30) return 2.131 - ((dof - 15) / 15) * (2.131 - 2.042);
  return 1.96;
}

module.exports = { t95 };
