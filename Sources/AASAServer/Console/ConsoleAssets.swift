import AASAKernel
import AASAOutbound
import AASARules
import AASAServices

/// The console's one stylesheet, served by aasad (`/console/static/console.css`): nothing comes
/// from a CDN, and the Content-Security-Policy (`default-src 'self'`) would refuse it if it did.
enum ConsoleAssets {
    static let css = """
        :root { font-family: system-ui, sans-serif; color: #111; background: #fff; line-height: 1.45; }
        body { margin: 0; }
        header { display: flex; gap: 1rem; align-items: center; padding: .6rem 1rem; background: #1d2b3a; color: #fff; }
        header a { color: #fff; }
        header nav { display: flex; gap: 1rem; }
        header .brand { font-weight: 700; }
        header .who { margin-left: auto; }
        main { padding: 1rem 1.5rem; max-width: 90rem; }
        a { color: #0b57d0; }
        .skip { position: absolute; left: -999px; }
        .skip:focus { left: 1rem; top: .5rem; background: #fff; color: #000; padding: .3rem; }
        table { border-collapse: collapse; margin: .5rem 0 1rem; }
        th, td { border: 1px solid #bbb; padding: .3rem .5rem; text-align: left; vertical-align: top; }
        caption { text-align: left; font-weight: 600; padding: .3rem 0; }
        pre { background: #f4f4f4; padding: .6rem; overflow: auto; max-height: 28rem; border: 1px solid #ddd; }
        code { font-size: .92em; }
        .fp { word-break: break-all; }
        .muted { color: #555; }
        .bad { color: #a0001c; font-weight: 600; }
        .warn { color: #8a4b00; font-weight: 600; }
        .ok { color: #1b5e20; }
        .state-current { color: #1b5e20; font-weight: 600; }
        .state-stale, .state-error, .state-not-linked { color: #a0001c; font-weight: 600; }
        .state-verified, .state-converged { color: #1b5e20; font-weight: 600; }
        .facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
        .facts dt { font-weight: 600; }
        .facts dd { margin: 0; }
        .actions { display: flex; gap: 1rem; }
        .stack { display: flex; flex-direction: column; gap: .4rem; max-width: 36rem; }
        .inline, .inline-form { display: inline-flex; gap: .4rem; align-items: center; flex-wrap: wrap; }
        input, button { font: inherit; padding: .25rem .4rem; }
        button { cursor: pointer; }
        .problem { border-left: 4px solid #a0001c; padding: .2rem 1rem; background: #fff4f4; }
        .problem li { overflow-wrap: anywhere; }
        .map, .timeline { max-width: 100%; height: auto; border: 1px solid #ddd; }
        .crumbs { margin: 0; }
        ol.rules li { margin: .15rem 0; }
        .providers { list-style: none; padding: 0; display: flex; flex-direction: column; gap: .5rem; }
        a.button { display: inline-block; padding: .4rem .8rem; border: 1px solid #0b57d0; border-radius: 4px; }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
        """
}
