import Foundation
import NALLogging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension DownloadJob {
    /// A whole download over any transport: sends `request` (with the job's resume headers) through `send`, which
    /// writes the body through the job and follows redirects, resumes with a range request when the connection
    /// breaks and the server allows it, and moves the file into place. A response that is not a success keeps its
    /// body in memory and leaves no file.
    static func run(
        _ request: URLRequest, as original: URLRequest, to destination: DownloadDestination,
        progress: ProgressReporter?, started: (date: Date, instant: ContinuousClock.Instant),
        send: (URLRequest, DownloadJob) async throws(NALError) -> (HTTPURLResponse, Data)
    ) async throws(NALError) -> Response {
        let job = await DownloadJob.make(destination, for: request)
        var resumes = 0
        while true {
            var attempt = request
            for (name, value) in job.resumeHeaders { attempt.setValue(value, forHTTPHeaderField: name) }
            do {
                let (httpResponse, data) = try await send(attempt, job)
                let timing = ResponseTiming(start: started.date, duration: .now - started.instant)
                switch try await job.concludeOffThread(httpResponse) {
                case .downloaded(let file, let response):
                    progress?.complete()
                    return Response(
                        request: original, httpResponse: response, data: Data(), timing: timing, fileURL: file)
                case .notDownloaded:
                    return Response(request: original, httpResponse: httpResponse, data: data, timing: timing)
                case .restart where resumes < maximumResumes:
                    resumes += 1
                    continue
                case .restart:
                    await job.abandonOffThread()
                    return Response(request: original, httpResponse: httpResponse, data: data, timing: timing)
                }
            } catch {
                if resumes < maximumResumes, !Task.isCancelled, job.prepareResume(after: error) {
                    resumes += 1
                    CoreLog.request.notice(
                        "download from \(DisplayText.url(request.url), privacy: .public) interrupted (\(error)); resuming"
                    )
                    continue
                }
                await job.abandonOffThread()
                throw error
            }
        }
    }
}
