# The ioscore service image: web (gunicorn), worker and beat all run from it.
FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 IOSCORE_VAR=/var/lib/ioscore
WORKDIR /app
COPY requirements.txt ./
RUN pip install --no-cache-dir -r requirements.txt
COPY runners/ runners/
RUN pip install --no-cache-dir --no-deps -e runners
COPY webapp/ webapp/
COPY migrations/ migrations/
COPY static/ static/
RUN useradd --system --home /var/lib/ioscore ioscore && mkdir -p /var/lib/ioscore/media \
    && chown -R ioscore /var/lib/ioscore
USER ioscore
WORKDIR /app/webapp
EXPOSE 8000
CMD ["gunicorn", "ioscore_site.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--worker-class", "gthread", "--threads", "4"]
