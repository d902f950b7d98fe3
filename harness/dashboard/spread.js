/* The spread of every point on asv's graphs, drawn as bars with flot's error-bar plugin.
 *
 * asv's graphs carry one value per commit; spread.py writes, beside each graph file
 * graphs/<params>/<benchmark>.json, a file spread/<params>/<benchmark>.json of the same shape
 * whose values are [low, high] intervals (the fastest sample to the median). This script
 *   - loads that file with each graph (load_graph_data),
 *   - gives each point its bars' lengths, [x, y, y - low, high - y] (filter_graph_data),
 *   - and turns flot's error bars on for a series whose points carry them (a flot plugin).
 * It wraps asv's functions rather than editing asv's files, so a newer asv that renames them
 * shows its graphs without bars instead of breaking.
 */
(function ($) {
    "use strict";

    // raw graph data -> its spread, in the same order as the raw points
    var spreads = new WeakMap();

    function spread_url(url) {
        return url.replace(/^graphs\//, "spread/");
    }

    // The spread entries lined up with the raw points, so that asv's own filter picks the
    // same parameter combination out of both.
    function aligned(raw, spread) {
        var by_revision = {};
        $.each(spread, function (i, point) { by_revision[point[0]] = point[1]; });
        return raw.map(function (point) {
            var found = by_revision[point[0]];
            return [point[0], found === undefined ? null : found];
        });
    }

    function with_bars(series, bounds) {
        var any = false;
        var out = series.map(function (point, i) {
            var bound = bounds[i] ? bounds[i][1] : null;
            var y = point[1];
            if (y === null || y === undefined) {
                return point;
            }
            if (!bound || bound[0] === null || bound[1] === null) {
                return [point[0], y, 0, 0];
            }
            any = true;
            return [point[0], y, Math.max(0, y - bound[0]), Math.max(0, bound[1] - y)];
        });
        return any ? out : series;
    }

    $(document).ready(function () {
        if (!$.asv || !$.asv.load_graph_data || !$.asv.filter_graph_data || !$.plot) {
            return;
        }
        var load = $.asv.load_graph_data;
        var filter = $.asv.filter_graph_data;

        $.asv.load_graph_data = function (url) {
            var done = $.Deferred();
            load.apply(this, arguments).done(function (data) {
                if (url.indexOf("graphs/") !== 0) {
                    done.resolve(data);
                    return;
                }
                $.ajax({url: spread_url(url) + "?timestamp=" + $.asv.main_timestamp,
                        dataType: "json", cache: true})
                    .done(function (spread) {
                        spreads.set(data, aligned(data, spread));
                        done.resolve(data);
                    })
                    .fail(function () { done.resolve(data); });
            }).fail(function () { done.reject(); });
            return done.promise();
        };

        $.asv.filter_graph_data = function (raw, x_axis, other_indices, params) {
            var series = filter.apply(this, arguments);
            var spread = spreads.get(raw);
            if (!spread) {
                return series;
            }
            return with_bars(series, filter(spread, x_axis, other_indices, params));
        };

        // Before flot's error-bar plugin in the list, so that its options are set by the
        // time that plugin reads a series' data format.
        $.plot.plugins.unshift({
            name: "harness-spread",
            version: "1.0",
            init: function (plot) {
                plot.hooks.processRawData.push(function (plot, series) {
                    var has_bars = series.data.some(function (p) { return p && p.length === 4; });
                    // Parameters on the x axis are drawn as bar charts of categories, whose
                    // data format flot's error bars would replace: those go without.
                    if (!has_bars || series.xaxis.options.mode === "categories") {
                        return;
                    }
                    series.points.errorbars = "y";
                    series.points.yerr = {show: true, asymmetric: true, upperCap: "-",
                                          lowerCap: "-", radius: 4, color: null};
                    // a point without bars is drawn with zero-length ones
                    series.data = series.data.map(function (p) {
                        return p && p.length === 2 && p[1] !== null ? [p[0], p[1], 0, 0] : p;
                    });
                });
            }
        });
    });
})(jQuery);
