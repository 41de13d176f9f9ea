'use strict';

module.exports = require('./global-tmp').setup;
