//! The pictures of `trama render`: a view drawn as SVG, or rasterized as
//! PNG, the hosts' container type chosen from the trace when the view
//! needs one and none is named; the size of a recording checked.

use trama_analysis::{host_level, Messages, Window};
use trama_sim::Trace;
use trama_views::{draw, svg_to_png, RecordOptions, View, ViewOptions};

use crate::Error;

/// `view` of `trace` over `window`, as SVG or, with `png`, PNG; what is
/// worth saying of it (the hosts chosen, link types left out) goes to
/// `notes`.
pub fn picture(
    trace: &Trace,
    view: View,
    window: Window,
    opts: &ViewOptions,
    png: bool,
    notes: &mut Vec<String>,
) -> Result<Vec<u8>, Error> {
    let mut opts = opts.clone();
    if matches!(view, View::Kiviat | View::Mapping) && opts.level.is_none() {
        let msgs = Messages::select(trace, &opts.link_types)?;
        let h = host_level(trace, &msgs).ok_or(Error::NoHostLevel)?;
        notes.push(h.note());
        opts.level = Some(h.name);
    }
    let mut svg = Vec::new();
    let msgs = draw(trace, view, window, &opts, &mut svg)?;
    if view != View::SpaceTime {
        notes.extend(msgs.note());
    }
    if png {
        return svg_to_png(&svg).map_err(Error::Raster);
    }
    Ok(svg)
}

/// Whether a recording of `opts`'s size can be made: 200–8192 pixels
/// wide, 150–8192 high.
pub fn check_recording(opts: &RecordOptions) -> Result<(), Error> {
    let (w, h) = (opts.width, opts.height);
    if w < 200 || h < 150 || w > 8192 || h > 8192 {
        return Err(Error::RecordingSize(w, h));
    }
    Ok(())
}
